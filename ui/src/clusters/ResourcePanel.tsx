import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import { Badge, HealthBadge } from "../components/Badge";
import { Button } from "../components/Button";
import { ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import { queryKeys } from "../api/keys";
import type { Schemas, With } from "../api/types";

export type ResourceRef = With<Schemas["ObjectRef"], "group" | "version" | "kind" | "namespace" | "name">;

type Detail = Omit<
  With<
    Schemas["Detail"],
    | keyof ResourceRef
    | "yaml"
    | "yamlTruncated"
    | "labels"
    | "annotations"
    | "conditions"
    | "eventsIncluded"
    | "events"
    | "related"
  >,
  "conditions" | "events" | "related"
> & {
  conditions: With<Schemas["Condition"], "type" | "status" | "reason" | "message" | "lastTransitionTime">[];
  events: With<Schemas["Event"], "type" | "reason" | "message" | "count" | "source">[];
  related: With<Schemas["Related"], keyof ResourceRef | "relation" | "status" | "health">[];
};

/** The API path of one object: core for the empty group, no namespace segment when cluster-scoped. */
export function resourcePath(clusterId: string, r: ResourceRef): string {
  const parts = [r.group || "core", r.version, r.kind, ...(r.namespace ? [r.namespace] : []), r.name];
  return `/clusters/${clusterId}/resources/${parts.map(encodeURIComponent).join("/")}`;
}

/** One object read live through the agent: labels, conditions, events, related resources, YAML. */
export function ResourcePanel({
  clusterId,
  resource,
  onSelect,
  onClose,
}: {
  clusterId: string;
  resource: ResourceRef;
  onSelect: (r: ResourceRef) => void;
  onClose: () => void;
}) {
  const q = useQuery({
    queryKey: queryKeys.resource(clusterId, resource),
    queryFn: () => api<Detail>(resourcePath(clusterId, resource)),
    retry: false,
  });
  const title = `${resource.kind} ${resource.namespace ? resource.namespace + "/" : ""}${resource.name}`;
  return (
    <section aria-label={title} className="space-y-4 rounded border border-slate-200 bg-white p-4">
      <div className="flex items-center justify-between gap-3">
        <h2 className="text-lg font-semibold">{title}</h2>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      {q.isPending ? (
        <Loading what={title} />
      ) : q.isError ? (
        <ErrorState error={q.error} />
      ) : (
        <>
          <div className="flex flex-wrap gap-1 text-xs">
            {Object.entries(q.data.labels).map(([k, v]) => (
              <code key={k} className="rounded bg-slate-100 px-1.5 py-0.5">
                {k}={v}
              </code>
            ))}
          </div>
          {q.data.conditions.length > 0 && (
            <table aria-label="Conditions" className="min-w-full text-left text-sm">
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-2 py-1">Condition</th>
                  <th className="px-2 py-1">Status</th>
                  <th className="px-2 py-1">Reason</th>
                  <th className="px-2 py-1">Message</th>
                </tr>
              </thead>
              <tbody>
                {q.data.conditions.map((c) => (
                  <tr key={c.type} className="border-t border-slate-100">
                    <td className="px-2 py-1">{c.type}</td>
                    <td className="px-2 py-1">{c.status}</td>
                    <td className="px-2 py-1">{c.reason}</td>
                    <td className="px-2 py-1 text-slate-600">{c.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {q.data.related.length > 0 && (
            <div>
              <h3 className="text-sm font-semibold">Related</h3>
              <ul aria-label="Related resources" className="mt-1 space-y-1 text-sm">
                {q.data.related.map((r) => (
                  <li key={`${r.relation}/${r.kind}/${r.name}`} className="flex flex-wrap items-center gap-2">
                    <span className="text-slate-500">{r.relation}</span>
                    <button type="button" className="text-indigo-700 hover:underline" onClick={() => onSelect(r)}>
                      {r.kind} {r.name}
                    </button>
                    {r.status && <span className="text-slate-600">{r.status}</span>}
                    {r.health && <HealthBadge health={r.health} />}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <div>
            <h3 className="text-sm font-semibold">Events</h3>
            {!q.data.eventsIncluded ? (
              <p className="text-sm text-slate-600">Events need the agent's diagnostics.read capability.</p>
            ) : q.data.events.length === 0 ? (
              <p className="text-sm text-slate-600">No events.</p>
            ) : (
              <ul aria-label="Events" className="mt-1 space-y-1 text-sm">
                {q.data.events.map((e, i) => (
                  <li key={i}>
                    <Badge tone={e.type === "Warning" ? "yellow" : "gray"}>{e.type || "Normal"}</Badge>{" "}
                    <strong>{e.reason}</strong> {e.message}{" "}
                    <span className="text-slate-500">{e.lastSeen ? relative(e.lastSeen) : ""}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div>
            <h3 className="text-sm font-semibold">YAML{q.data.yamlTruncated ? " (cut at 1 MiB)" : ""}</h3>
            <pre
              aria-label="YAML"
              className="mt-1 max-h-96 overflow-auto rounded bg-slate-900 p-3 text-xs text-slate-100"
            >
              {q.data.yaml}
            </pre>
          </div>
        </>
      )}
    </section>
  );
}
