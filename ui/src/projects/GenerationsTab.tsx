import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Page, Project, Schemas, With } from "../api/types";
import { Badge } from "../components/Badge";
import { Empty, ErrorState, Loading } from "../components/States";
import { relative } from "../components/time";
import { queryKeys } from "../api/keys";

type Generation = With<Schemas["Generation"], "revision" | "status">;

type Commit = With<Schemas["ProjectService.CommitView"], "id" | "author" | "at" | "description">;

const TONE: Record<string, "green" | "yellow" | "red" | "gray" | "blue"> = {
  committed: "green",
  unchanged: "green",
  rendering: "blue",
  planned: "blue",
  failed: "red",
  superseded: "gray",
};

/** "3 rendered / 997 reused" for a generation that recorded both counts, else null. */
export function renderedReused(g: Pick<Generation, "rendered" | "reused">): string | null {
  if (g.rendered == null || g.reused == null) {
    return null;
  }
  return `${g.rendered} rendered / ${g.reused} reused`;
}

export function GenerationsTab({ project }: { project: Project }) {
  const gens = useQuery({
    queryKey: queryKeys.generations(project.id),
    queryFn: () => api<Page<Generation>>(`/projects/${project.id}/generations?limit=50`),
    refetchInterval: 5_000,
  });
  const commits = useQuery({
    queryKey: queryKeys.commits(project.id),
    queryFn: () => api<Page<Commit>>(`/projects/${project.id}/commits?limit=30`),
  });
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <div className="rounded border border-slate-200 bg-white">
        <h2 className="border-b border-slate-100 px-3 py-2 font-medium">Delivery generations</h2>
        {gens.isPending ? (
          <Loading what="generations" />
        ) : gens.isError ? (
          <ErrorState error={gens.error} />
        ) : gens.data.items.length === 0 ? (
          <Empty>No generation yet.</Empty>
        ) : (
          <ul className="text-sm">
            {gens.data.items.map((g) => (
              <li key={g.revision} className="border-t border-slate-100 px-3 py-2 first:border-t-0">
                revision {g.revision} <Badge tone={TONE[g.status] ?? "gray"}>{g.status}</Badge>{" "}
                {g.commit && <code className="text-xs">{g.commit.slice(0, 12)}</code>}{" "}
                <span className="text-slate-500">{relative(g.finishedAt ?? g.startedAt)}</span>
                {g.detail && <div className="text-xs text-slate-600">{g.detail}</div>}
                {renderedReused(g) && <div className="text-xs text-slate-500">units: {renderedReused(g)}</div>}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="rounded border border-slate-200 bg-white">
        <h2 className="border-b border-slate-100 px-3 py-2 font-medium">Commits on main</h2>
        {commits.isPending ? (
          <Loading what="commits" />
        ) : commits.isError ? (
          <ErrorState error={commits.error} />
        ) : (
          <ul className="text-sm">
            {commits.data.items.map((c) => (
              <li key={c.id} className="border-t border-slate-100 px-3 py-2 first:border-t-0">
                <code className="text-xs">{c.id.slice(0, 12)}</code> {c.description}{" "}
                <span className="text-slate-500">
                  — {c.author}, {relative(c.at)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
