import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Grant, Member, Page, Project, Team, TeamDetail } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";
import { parseSelector, selectorText } from "../clusters/labelSelector";

const GRANT_ROLES = ["viewer", "member", "admin"];

/** Teams, their members and their grants (docs/policies.md#teams-and-grants). */
export function TeamsPage() {
  const { can } = useSession();
  const client = useQueryClient();
  const teams = useQuery({ queryKey: queryKeys.teams(), queryFn: () => api<Page<Team>>("/teams") });
  const [name, setName] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => api<TeamDetail>("/teams", { body: { name } }),
    onSuccess: () => {
      setName("");
      return client.invalidateQueries({ queryKey: queryKeys.teams() });
    },
  });
  return (
    <section aria-labelledby="teams-title" className="space-y-4">
      <h1 id="teams-title" className="text-2xl font-semibold">
        Teams
      </h1>
      <p className="text-sm text-slate-600">
        Members and viewers reach a project or cluster only through a grant of one of their teams; owners and admins
        reach everything.
      </p>
      <div className="rounded border border-slate-200 bg-white">
        {teams.isPending ? (
          <Loading what="teams" />
        ) : teams.isError ? (
          <ErrorState error={teams.error} />
        ) : teams.data.items.length === 0 ? (
          <Empty>No teams.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100">
            {teams.data.items.map((t) => (
              <li key={t.id} className="px-3 py-2">
                <div className="flex items-center justify-between">
                  <span>
                    <span className="font-medium">{t.name}</span>{" "}
                    <span className="text-sm text-slate-500">
                      {t.memberCount} member{t.memberCount === 1 ? "" : "s"}
                      {t.description ? ` · ${t.description}` : ""}
                    </span>
                  </span>
                  <Button
                    onClick={() => setOpen(open === t.id ? null : t.id)}
                    aria-expanded={open === t.id}
                    aria-label={`Team ${t.name}`}
                  >
                    {open === t.id ? "Close" : "Open"}
                  </Button>
                </div>
                {open === t.id && <TeamPanel id={t.id} canWrite={can("members:write")} />}
              </li>
            ))}
          </ul>
        )}
      </div>
      {can("members:write") && (
        <form
          aria-label="Create team"
          className="flex items-end gap-2 rounded border border-slate-200 bg-white p-4"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="text-sm">
            Name
            <input className={inputClass} value={name} onChange={(e) => setName(e.target.value)} required />
          </label>
          <Button variant="primary" type="submit" disabled={create.isPending}>
            Create team
          </Button>
          <FormError error={create.error} />
        </form>
      )}
    </section>
  );
}

function TeamPanel({ id, canWrite }: { id: string; canWrite: boolean }) {
  const client = useQueryClient();
  const team = useQuery({ queryKey: queryKeys.team(id), queryFn: () => api<TeamDetail>(`/teams/${id}`) });
  const members = useQuery({
    queryKey: queryKeys.members(),
    queryFn: () => api<Page<Member>>("/members"),
    enabled: canWrite,
  });
  const projects = useQuery({
    queryKey: queryKeys.projects(),
    queryFn: () => api<Page<Project>>("/projects"),
    enabled: canWrite,
  });
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.team(id) }),
      client.invalidateQueries({ queryKey: queryKeys.teams() }),
    ]);
  const [member, setMember] = useState("");
  const add = useMutation({
    mutationFn: () => api<TeamDetail>(`/teams/${id}/members`, { body: { memberId: member } }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (memberId: string) => api<void>(`/teams/${id}/members/${memberId}`, { method: "DELETE" }),
    onSuccess: refresh,
  });
  const [g, setG] = useState({ role: "member", scope: "project", projectId: "", selector: "" });
  const grant = useMutation({
    mutationFn: () =>
      api<Grant>("/grants", {
        body: {
          teamId: id,
          role: g.role,
          scope: g.scope,
          ...(g.scope === "project" ? { projectId: g.projectId } : {}),
          ...(g.scope === "clusters" ? { selector: parseSelector(g.selector) ?? {} } : {}),
        },
      }),
    onSuccess: refresh,
  });
  const revoke = useMutation({
    mutationFn: (grantId: string) => api<void>(`/grants/${grantId}`, { method: "DELETE" }),
    onSuccess: refresh,
  });
  if (team.isPending) return <Loading what="team" />;
  if (team.isError) return <ErrorState error={team.error} />;
  const projectName = (pid: string | undefined) => projects.data?.items.find((p) => p.id === pid)?.name ?? pid;
  return (
    <div className="mt-2 grid gap-4 md:grid-cols-2">
      <div>
        <h3 className="text-sm font-medium">Members</h3>
        {(team.data.members ?? []).length === 0 ? (
          <Empty>No members.</Empty>
        ) : (
          <ul className="text-sm">
            {(team.data.members ?? []).map((m) => (
              <li key={`${m.memberId}-${m.source}`} className="flex items-center justify-between py-1">
                <span>
                  {m.email} <span className="text-slate-500">({m.source === "oidc" ? "from SSO" : "by hand"})</span>
                </span>
                {canWrite && m.source === "manual" && (
                  <Button onClick={() => remove.mutate(m.memberId!)} aria-label={`Remove ${m.email} from the team`}>
                    Remove
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
        {canWrite && (
          <form
            aria-label="Add team member"
            className="mt-2 flex items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              add.mutate();
            }}
          >
            <label className="text-sm">
              Member
              <select className={inputClass} value={member} onChange={(e) => setMember(e.target.value)} required>
                <option value="">—</option>
                {members.data?.items.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.email}
                  </option>
                ))}
              </select>
            </label>
            <Button type="submit" disabled={add.isPending}>
              Add
            </Button>
            <FormError error={add.error ?? remove.error} />
          </form>
        )}
      </div>
      <div>
        <h3 className="text-sm font-medium">Grants</h3>
        {(team.data.grants ?? []).length === 0 ? (
          <Empty>No grants: its members reach nothing through this team.</Empty>
        ) : (
          <ul className="text-sm">
            {(team.data.grants ?? []).map((gr) => (
              <li key={gr.id} className="flex items-center justify-between py-1">
                <span>
                  {gr.role} on{" "}
                  {gr.scope === "project"
                    ? `project ${projectName(gr.projectId)}`
                    : gr.scope === "projects"
                      ? "every project"
                      : `clusters ${selectorText(gr.selector, "(every cluster)")}`}
                </span>
                {canWrite && (
                  <Button onClick={() => revoke.mutate(gr.id!)} aria-label={`Revoke ${gr.role} on ${gr.scope}`}>
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
        {canWrite && (
          <form
            aria-label="Add grant"
            className="mt-2 grid gap-2 md:grid-cols-2"
            onSubmit={(e) => {
              e.preventDefault();
              grant.mutate();
            }}
          >
            <label className="text-sm">
              Role
              <select className={inputClass} value={g.role} onChange={(e) => setG({ ...g, role: e.target.value })}>
                {GRANT_ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </label>
            <label className="text-sm">
              On
              <select className={inputClass} value={g.scope} onChange={(e) => setG({ ...g, scope: e.target.value })}>
                <option value="project">one project</option>
                <option value="projects">every project</option>
                <option value="clusters">clusters by selector</option>
              </select>
            </label>
            {g.scope === "project" && (
              <label className="text-sm">
                Project
                <select
                  className={inputClass}
                  value={g.projectId}
                  onChange={(e) => setG({ ...g, projectId: e.target.value })}
                  required
                >
                  <option value="">—</option>
                  {projects.data?.items.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {g.scope === "clusters" && (
              <label className="text-sm">
                Selector (empty: every cluster)
                <input
                  className={inputClass}
                  value={g.selector}
                  placeholder="tier=dev,region in (eu)"
                  onChange={(e) => setG({ ...g, selector: e.target.value })}
                />
              </label>
            )}
            <div>
              <Button variant="primary" type="submit" disabled={grant.isPending}>
                Grant
              </Button>
            </div>
            <FormError error={grant.error ?? revoke.error} />
          </form>
        )}
      </div>
    </div>
  );
}
