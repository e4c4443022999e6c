import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { OrgEnvironment, Page } from "../api/types";
import { useSession } from "../auth/session";
import { Badge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { queryKeys } from "../api/keys";

/**
 * The organization's environments in order, with whether their deployments are verified: how long
 * a deployment waits for the environment's Flux and Argo CD clusters to run its commit before it
 * ends degraded. Admins (org:write) change the timeout.
 */
export function EnvironmentSettings() {
  const { can } = useSession();
  const envs = useQuery({
    queryKey: queryKeys.environments(),
    queryFn: () => api<Page<OrgEnvironment>>("/environments"),
  });
  return (
    <div className="space-y-3">
      <h2 className="text-lg font-medium">Environments</h2>
      <p className="text-sm text-slate-600">
        A verified environment's deployments end <em>deployed</em> only once every Flux and Argo CD cluster runs the
        commit, in sync and healthy, within the timeout; otherwise they end <em>degraded</em>, and promoting from there
        needs break-glass. 0 or empty: not verified (10 to 86400 seconds).
      </p>
      {envs.isPending ? (
        <Loading what="environments" />
      ) : envs.isError ? (
        <ErrorState error={envs.error} />
      ) : envs.data.items.length === 0 ? (
        <Empty>The organization has no environment yet.</Empty>
      ) : (
        <ul
          aria-label="Organization environments"
          className="divide-y divide-slate-100 rounded border border-slate-200 bg-white text-sm"
        >
          {envs.data.items.map((e) => (
            <EnvironmentRow key={e.name} env={e} writable={can("org:write")} />
          ))}
        </ul>
      )}
    </div>
  );
}

function EnvironmentRow({ env, writable }: { env: OrgEnvironment; writable: boolean }) {
  const client = useQueryClient();
  const [seconds, setSeconds] = useState(String(env.verifyTimeoutSeconds ?? 0));
  const save = useMutation({
    mutationFn: () =>
      api<OrgEnvironment>(`/environments/${env.name}`, {
        method: "PATCH",
        body: { verifyTimeoutSeconds: Number(seconds) },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.environments() }),
  });
  return (
    <li className="flex flex-wrap items-center gap-3 px-3 py-2">
      <span className="font-medium">{env.name}</span>
      {env.description && <span className="text-slate-600">{env.description}</span>}
      {env.verifyTimeoutSeconds ? (
        <Badge tone="green">{`verified within ${env.verifyTimeoutSeconds} s`}</Badge>
      ) : (
        <Badge>not verified</Badge>
      )}
      {writable && (
        <form
          aria-label={`Verification of ${env.name}`}
          className="ml-auto flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <label className="text-xs">
            Verification timeout (seconds)
            <input
              type="number"
              min={0}
              max={86400}
              className={`${inputClass} w-32`}
              value={seconds}
              onChange={(e) => setSeconds(e.target.value)}
              required
            />
          </label>
          <Button type="submit" disabled={save.isPending}>
            Save timeout
          </Button>
          <FormError error={save.error} />
        </form>
      )}
    </li>
  );
}
