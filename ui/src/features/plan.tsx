import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import { queryKeys } from "../api/keys";
import type { Features } from "../api/types";

/** The feature gates `GET /features` reports; each is enforced by the hub on the requests that use it. */
export type Gate =
  | "FeaturePromotion"
  | "FeatureRollback"
  | "FeatureSelectiveRollback"
  | "FeatureRollbackApproval"
  | "FeatureTeams"
  | "FeatureNotifications"
  | "FeatureValuesGovernance";

export interface Plan {
  /** The organization's plan, once known. */
  plan?: string;
  /**
   * Whether the plan opens the gate. While the answer is loading, or when it failed, the gate counts
   * as open: the hub refuses what the plan lacks anyway, and its 403 names the feature and the plan.
   */
  has: (gate: Gate) => boolean;
  /** Why a closed gate is closed, as a sentence; null when it is open. */
  why: (gate: Gate) => string | null;
}

/** The caller's organization's plan and its gates. */
export function usePlan(): Plan {
  const features = useQuery({
    queryKey: queryKeys.features(),
    queryFn: () => api<Features>("/features"),
    staleTime: 5 * 60_000,
  });
  const data = features.data;
  const has = (gate: Gate) => data?.features?.[gate] ?? true;
  return {
    plan: data?.plan,
    has,
    why: (gate) =>
      has(gate)
        ? null
        : `${gate} is not in this organization's plan ${data?.plan ?? ""}; it needs plan ${
            data?.requiredPlans?.[gate] ?? "a higher plan"
          }.`,
  };
}

/** The reason a control is off, next to it; nothing when the gate is open. */
export function PlanNote({ plan, gate, id }: { plan: Plan; gate: Gate; id?: string }) {
  const why = plan.why(gate);
  if (!why) return null;
  return (
    <p id={id} className="text-xs text-amber-800">
      {why}
    </p>
  );
}
