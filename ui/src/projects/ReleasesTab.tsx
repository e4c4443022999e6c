import { useState } from "react";
import { PlanNote, usePlan } from "../features/plan";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api } from "../api/client";
import type { Page, Project, Release, ReleaseDetail, Schemas, With } from "../api/types";
import { Badge, StatusBadge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { relative } from "../components/time";
import { useSession } from "../auth/session";
import { EvidenceLink } from "../audit/EvidenceLink";
import { DeploymentTimeline } from "./DeploymentTimeline";
import { queryKeys } from "../api/keys";

type DeliveryRow = With<Schemas["DeliveryView"], "environment" | "tenant">;

/** A rollback scope entry as the form holds it; empty fields are left out of the body. */
export interface ScopeEntry {
  environment: string;
  tenant: string;
  service: string;
}

/** The body's `scope`: "all", or the entries that name at least one of environment/tenant/service. */
export function rollbackScope(all: boolean, entries: ScopeEntry[]): "all" | Record<string, string>[] {
  if (all) return "all";
  return entries
    .map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v.trim() !== "")))
    .filter((e) => Object.keys(e).length > 0);
}

export function ReleasesTab({ project }: { project: Project }) {
  const { can } = useSession();
  const deliveries = useQuery({
    queryKey: queryKeys.deliveries(project.id),
    queryFn: () => api<Page<DeliveryRow>>(`/projects/${project.id}/deliveries`),
    refetchInterval: 5_000,
  });
  const releases = useQuery({
    queryKey: queryKeys.releases(project.id),
    queryFn: () => api<Page<Release>>(`/projects/${project.id}/releases`),
    refetchInterval: 5_000,
  });
  const environments = [...new Set((deliveries.data?.items ?? []).map((d) => d.environment))];
  return (
    <div className="space-y-6">
      <div aria-label="Environment pipeline" className="flex flex-wrap items-stretch gap-2">
        {environments.length === 0 && <Empty>No environments deliver yet.</Empty>}
        {environments.map((env, i) => {
          const rows = (deliveries.data?.items ?? []).filter((d) => d.environment === env);
          const numbers = [...new Set(rows.map((r) => r.deployedRelease).filter((n) => n !== undefined))];
          return (
            <div key={env} className="flex items-center gap-2">
              {i > 0 && <span aria-hidden="true">→</span>}
              <div className="min-w-36 rounded border border-slate-200 bg-white p-3 text-sm">
                <div className="font-medium">{env}</div>
                <div className="text-slate-600">
                  {numbers.length ? numbers.map((n) => `#${n}`).join(", ") : "nothing deployed"}
                </div>
              </div>
            </div>
          );
        })}
      </div>
      {can("releases:create") && <CreateRelease project={project} environments={environments} />}
      <div className="space-y-2">
        {releases.isPending ? (
          <Loading what="releases" />
        ) : releases.isError ? (
          <ErrorState error={releases.error} />
        ) : releases.data.items.length === 0 ? (
          <Empty>No releases yet.</Empty>
        ) : (
          releases.data.items.map((r) => <ReleaseRow key={r.id} project={project} release={r} />)
        )}
      </div>
    </div>
  );
}

/**
 * Whether the hub refused a promotion because the release is only degraded in the environment it
 * would be promoted from (written, but a cluster did not run it): break-glass may still promote it.
 */
export function isDegradedRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 409 &&
    / is degraded in /.test(error.message) &&
    /breakGlass/.test(error.message)
  );
}

function BreakGlassFields({
  value,
  onChange,
}: {
  value: { breakGlass: boolean; justification: string };
  onChange: (v: { breakGlass: boolean; justification: string }) => void;
}) {
  return (
    <>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={value.breakGlass}
          onChange={(e) => onChange({ ...value, breakGlass: e.target.checked })}
        />
        Break-glass
      </label>
      {value.breakGlass && (
        <label className="block text-sm">
          Justification
          <textarea
            className={inputClass}
            value={value.justification}
            onChange={(e) => onChange({ ...value, justification: e.target.value })}
            required
          />
        </label>
      )}
    </>
  );
}

function CreateRelease({ project, environments }: { project: Project; environments: string[] }) {
  const client = useQueryClient();
  const [f, setF] = useState({ description: "", environment: "", breakGlass: false, justification: "" });
  const create = useMutation({
    mutationFn: () =>
      api(`/projects/${project.id}/releases`, {
        body: {
          ...(f.description && { description: f.description }),
          ...(f.environment && { environment: f.environment }),
          ...(f.breakGlass && { breakGlass: true, justification: f.justification }),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.releases(project.id) }),
  });
  return (
    <form
      aria-label="Create release"
      className="grid gap-2 rounded border border-slate-200 bg-white p-4 md:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <label className="text-sm">
        Description
        <input
          className={inputClass}
          value={f.description}
          onChange={(e) => setF({ ...f, description: e.target.value })}
        />
      </label>
      <label className="text-sm">
        First environment
        <select
          className={inputClass}
          value={f.environment}
          onChange={(e) => setF({ ...f, environment: e.target.value })}
        >
          <option value="">the first in order</option>
          {environments.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </select>
      </label>
      <BreakGlassFields value={f} onChange={(v) => setF({ ...f, ...v })} />
      <div className="md:col-span-2">
        <Button variant="primary" type="submit" disabled={create.isPending}>
          Create release
        </Button>
        <FormError error={create.error} />
      </div>
    </form>
  );
}

function ReleaseRow({ project, release }: { project: Project; release: Release }) {
  const { can } = useSession();
  const plan = usePlan();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [action, setAction] = useState<"promote" | "rollback" | null>(null);
  const [bg, setBg] = useState({ breakGlass: false, justification: "" });
  const [all, setAll] = useState(true);
  const [scope, setScope] = useState<ScopeEntry[]>([{ environment: "", tenant: "", service: "" }]);
  const detail = useQuery({
    queryKey: queryKeys.release(project.id, release.number),
    queryFn: () => api<ReleaseDetail>(`/projects/${project.id}/releases/${release.number}`),
    enabled: open,
    refetchInterval: open ? 3_000 : false,
  });
  const run = useMutation({
    mutationFn: () =>
      action === "promote"
        ? api(`/projects/${project.id}/releases/${release.number}/promote`, {
            body: bg.breakGlass ? { breakGlass: true, justification: bg.justification } : {},
          })
        : api(`/projects/${project.id}/rollbacks`, {
            body: {
              toRelease: release.number,
              scope: rollbackScope(all || !plan.has("FeatureSelectiveRollback"), scope),
              ...(bg.breakGlass && { breakGlass: true, justification: bg.justification }),
            },
          }),
    // Promoting from a degraded environment needs break-glass: tick it, so the justification is asked.
    onError: (e) => {
      if (isDegradedRefusal(e)) setBg((b) => ({ ...b, breakGlass: true }));
    },
    onSuccess: () => {
      setAction(null);
      client.invalidateQueries({ queryKey: queryKeys.releases(project.id) });
      client.invalidateQueries({ queryKey: queryKeys.release(project.id, release.number) });
    },
  });
  return (
    <div className="rounded border border-slate-200 bg-white p-3">
      <button
        type="button"
        className="flex w-full flex-wrap items-center gap-2 text-left"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="font-medium">Release #{release.number}</span>
        {release.kind !== "standard" && (
          <Badge tone="yellow">{release.rollbackOf ? `${release.kind} of #${release.rollbackOf}` : release.kind}</Badge>
        )}
        <span className="text-sm text-slate-600">{release.description}</span>
        <span className="ml-auto text-xs text-slate-500">
          by {release.requester.name} {relative(release.createdAt)}
        </span>
      </button>
      {open && (
        <div className="mt-3 space-y-3 text-sm">
          {detail.isPending ? (
            <Loading what="the release" />
          ) : detail.isError ? (
            <ErrorState error={detail.error} />
          ) : (
            <>
              <p>
                Source commit <code>{detail.data.sourceCommit?.slice(0, 12) ?? "not resolved yet"}</code>, configuration
                revision {detail.data.configRevision}
              </p>
              {(detail.data.environments?.length ?? 0) > 0 && (
                <p aria-label={`Where release ${release.number} stands`} className="flex flex-wrap items-center gap-2">
                  {detail.data.environments?.map((e) => (
                    <span key={e.environment} className="inline-flex items-center gap-1">
                      {e.environment} <StatusBadge status={e.status} />
                    </span>
                  ))}
                </p>
              )}
              <ul aria-label={`Deployments of release ${release.number}`} className="space-y-1">
                {detail.data.deployments?.map((d) => (
                  <li key={d.id} className="flex flex-wrap items-center gap-2">
                    <StatusBadge status={d.status} /> {d.action} → {d.environments.join(", ")}{" "}
                    {d.breakGlass && <Badge tone="red">break-glass</Badge>}
                    <span className="text-slate-500">{d.detail}</span>
                    <details className="w-full">
                      <summary className="cursor-pointer text-xs text-slate-600">Timeline</summary>
                      <DeploymentTimeline projectId={project.id} deploymentId={d.id} />
                    </details>
                  </li>
                ))}
              </ul>
            </>
          )}
          {can("audit:read") && (
            <EvidenceLink
              path={`/projects/${project.id}/releases/${release.number}/evidence`}
              filename={`${project.name}-release-${release.number}.evidence.json`}
            />
          )}
          {can("releases:create") && release.kind === "standard" && (
            <div className="flex gap-2">
              <Button
                disabled={!plan.has("FeaturePromotion")}
                aria-describedby={plan.has("FeaturePromotion") ? undefined : `promote-plan-${release.number}`}
                onClick={() => setAction(action === "promote" ? null : "promote")}
              >
                Promote
              </Button>
              <Button
                disabled={!plan.has("FeatureRollback")}
                aria-describedby={plan.has("FeatureRollback") ? undefined : `rollback-plan-${release.number}`}
                onClick={() => setAction(action === "rollback" ? null : "rollback")}
              >
                Roll back to this release
              </Button>
            </div>
          )}
          {can("releases:create") && release.kind === "standard" && (
            <>
              <PlanNote plan={plan} gate="FeaturePromotion" id={`promote-plan-${release.number}`} />
              <PlanNote plan={plan} gate="FeatureRollback" id={`rollback-plan-${release.number}`} />
            </>
          )}
          {action && (
            <form
              aria-label={action === "promote" ? "Promote release" : "Roll back"}
              className="space-y-2 rounded bg-slate-50 p-3"
              onSubmit={(e) => {
                e.preventDefault();
                run.mutate();
              }}
            >
              {action === "rollback" && (
                <>
                  <label className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      checked={all || !plan.has("FeatureSelectiveRollback")}
                      disabled={!plan.has("FeatureSelectiveRollback")}
                      onChange={(e) => setAll(e.target.checked)}
                    />{" "}
                    Everything (scope "all")
                  </label>
                  <PlanNote plan={plan} gate="FeatureSelectiveRollback" />
                  {!all &&
                    plan.has("FeatureSelectiveRollback") &&
                    scope.map((s, i) => (
                      <div key={i} className="grid grid-cols-3 gap-2">
                        {(["environment", "tenant", "service"] as const).map((k) => (
                          <label key={k} className="text-xs capitalize">
                            {k}
                            <input
                              className={inputClass}
                              value={s[k]}
                              onChange={(e) =>
                                setScope(scope.map((x, j) => (j === i ? { ...x, [k]: e.target.value } : x)))
                              }
                            />
                          </label>
                        ))}
                      </div>
                    ))}
                  {!all && plan.has("FeatureSelectiveRollback") && (
                    <Button onClick={() => setScope([...scope, { environment: "", tenant: "", service: "" }])}>
                      Add scope entry
                    </Button>
                  )}
                </>
              )}
              {action === "promote" && isDegradedRefusal(run.error) && (
                <p className="rounded bg-orange-50 p-2 text-orange-900">
                  The environment it would be promoted from did not run this release. To promote it anyway, give a
                  break-glass justification: the promotion is reviewed afterwards.
                </p>
              )}
              <BreakGlassFields value={bg} onChange={setBg} />
              <Button variant="primary" type="submit" disabled={run.isPending}>
                {action === "promote" ? "Promote" : "Roll back"}
              </Button>
              <FormError error={run.error} />
            </form>
          )}
        </div>
      )}
    </div>
  );
}
