import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Page, PolicySummary } from "../api/types";
import { Empty, ErrorState, Loading } from "../components/States";
import { stamp } from "../components/time";
import { queryKeys } from "../api/keys";

export function PoliciesPage() {
  const q = useQuery({ queryKey: queryKeys.policies(), queryFn: () => api<Page<PolicySummary>>("/policies") });
  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title" className="text-2xl font-semibold">
        Policies
      </h1>
      <p className="mt-1 text-sm text-slate-600">
        Rego evaluated by OPA for every governed action. Each decision records the version that made it.
      </p>
      <div className="mt-4 rounded border border-slate-200 bg-white">
        {q.isPending ? (
          <Loading what="policies" />
        ) : q.isError ? (
          <ErrorState error={q.error} />
        ) : q.data.items.length === 0 ? (
          <Empty>No policies published.</Empty>
        ) : (
          <ul>
            {q.data.items.map((p) => (
              <li
                key={p.name}
                className="flex items-center justify-between border-t border-slate-100 px-4 py-2 first:border-t-0"
              >
                <Link className="font-medium text-indigo-700 hover:underline" to={`/policies/${p.name}`}>
                  {p.name}
                </Link>
                <span className="text-sm text-slate-500">
                  version {p.version} · {stamp(p.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
