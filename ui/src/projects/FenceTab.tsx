import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api } from "../api/client";
import type { Project, ProjectFence } from "../api/types";
import { Badge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";
import { useOnChange } from "../components/useOnChange";

/** The fence's three lists, as the hub names them, with what each one means. */
const LISTS = [
  {
    key: "allowedNamespaces",
    label: "Allowed namespaces",
    hint: "names or * patterns the project's delivery may write to",
    empty: "any namespace but the reserved ones (kube-system, kube-public, kube-node-lease, flux-system, argocd)",
  },
  {
    key: "clusterScopedKinds",
    label: "Cluster-scoped kinds",
    hint: "Kind, group/Kind, /Kind or group/* the project may deliver outside a namespace",
    empty: "none (only the Namespace of an allowed namespace)",
  },
  {
    key: "deniedKinds",
    label: "Denied kinds",
    hint: "Kind, group/Kind, /Kind or group/* the project may never deliver",
    empty: "none",
  },
] as const;

type ListKey = (typeof LISTS)[number]["key"];
type Lists = Record<ListKey, string>;

/** The PUT body from the editor's text: one entry per line, blank lines left out. */
export function fenceBody(lists: Lists): Record<ListKey, string[]> {
  const entries = (text: string) =>
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  return {
    allowedNamespaces: entries(lists.allowedNamespaces),
    clusterScopedKinds: entries(lists.clusterScopedKinds),
    deniedKinds: entries(lists.deniedKinds),
  };
}

/** The 400's errors about one list: `deniedKinds[2]` becomes "entry 3", the list itself stays as is. */
export function listErrors(error: unknown, key: ListKey): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.errors.flatMap((e) => {
    if (e.field === key) return [e.reason];
    const m = e.field.match(/^(\w+)\[(\d+)\]$/);
    return m && m[1] === key ? [`entry ${Number(m[2]) + 1}: ${e.reason}`] : [];
  });
}

/** What the form shows below the lists: an error that names no list, or the fields no list shows. */
function notAboutLists(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.errors.length === 0) return error;
  const rest = error.errors.filter(
    (e) => !LISTS.some((l) => listErrors(new ApiError(400, "", "", [e]), l.key).length > 0),
  );
  return rest.length === 0 ? null : new ApiError(error.status, error.error, error.message, rest);
}

/**
 * A project's fence: where its delivery may go and which kinds it may deliver. Members read it;
 * only the organization's admins (projects:admin) change it, so a project cannot widen its own.
 */
export function FenceTab({ project }: { project: Project }) {
  const { can } = useSession();
  const client = useQueryClient();
  const fence = useQuery({
    queryKey: queryKeys.fence(project.id),
    queryFn: () => api<ProjectFence>(`/projects/${project.id}/fence`),
  });
  const [lists, setLists] = useState<Lists>({ allowedNamespaces: "", clusterScopedKinds: "", deniedKinds: "" });
  useOnChange(fence.data, (data) => {
    if (data) {
      setLists({
        allowedNamespaces: data.allowedNamespaces.join("\n"),
        clusterScopedKinds: data.clusterScopedKinds.join("\n"),
        deniedKinds: data.deniedKinds.join("\n"),
      });
    }
  });
  const save = useMutation({
    mutationFn: () =>
      api<ProjectFence & { changed: boolean; revision: number }>(`/projects/${project.id}/fence`, {
        method: "PUT",
        body: fenceBody(lists),
      }),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.fence(project.id), saved);
      client.invalidateQueries({ queryKey: queryKeys.project(project.id) });
    },
  });
  if (fence.isPending) return <Loading what="the fence" />;
  if (fence.isError) return <ErrorState error={fence.error} />;
  const f = fence.data;
  const admin = can("projects:admin");
  return (
    <div className="space-y-4">
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-600">
        {f.default ? (
          <>
            <Badge tone="blue">default</Badge> No admin has set this project's fence: the hub's default applies.
          </>
        ) : (
          <>
            Set by {f.updatedBy} {f.updatedAt && `on ${stamp(f.updatedAt)}`}.
          </>
        )}{" "}
        Every change is a commit of <code>config/fence.yaml</code> and starts a delivery generation.
      </p>
      {admin ? (
        <form
          aria-label="Edit the fence"
          className="grid gap-4 rounded border border-slate-200 bg-white p-4 md:grid-cols-3"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          {LISTS.map((l) => {
            const errors = listErrors(save.error, l.key);
            return (
              <div key={l.key} className="text-sm">
                <label htmlFor={`fence-${l.key}`} className="font-medium">
                  {l.label}
                </label>
                <p className="text-xs text-slate-500">
                  {l.hint}; one per line (empty: {l.empty})
                </p>
                <textarea
                  id={`fence-${l.key}`}
                  rows={6}
                  className={`${inputClass} font-mono`}
                  value={lists[l.key]}
                  onChange={(e) => setLists({ ...lists, [l.key]: e.target.value })}
                  aria-invalid={errors.length > 0}
                  aria-describedby={errors.length > 0 ? `fence-${l.key}-errors` : undefined}
                />
                {errors.length > 0 && (
                  <ul id={`fence-${l.key}-errors`} role="alert" className="mt-1 list-disc pl-5 text-red-700">
                    {errors.map((e) => (
                      <li key={e}>{e}</li>
                    ))}
                  </ul>
                )}
              </div>
            );
          })}
          <div className="md:col-span-3">
            <Button type="submit" variant="primary" disabled={save.isPending}>
              Save fence
            </Button>
            {save.isSuccess && (
              <span role="status" className="ml-2 text-sm text-green-800">
                {save.data.changed ? `Saved as configuration revision ${save.data.revision}` : "Nothing changed"}
              </span>
            )}
            <FormError error={notAboutLists(save.error)} />
          </div>
        </form>
      ) : (
        <dl
          aria-label="The fence"
          className="grid gap-4 rounded border border-slate-200 bg-white p-4 text-sm md:grid-cols-3"
        >
          {LISTS.map((l) => (
            <div key={l.key}>
              <dt className="font-medium">{l.label}</dt>
              <dd className="text-xs text-slate-500">{l.hint}</dd>
              <dd>
                {f[l.key].length === 0 ? (
                  <span className="text-slate-500">empty: {l.empty}</span>
                ) : (
                  <ul aria-label={l.label}>
                    {f[l.key].map((e) => (
                      <li key={e}>
                        <code>{e}</code>
                      </li>
                    ))}
                  </ul>
                )}
              </dd>
            </div>
          ))}
          <p className="text-xs text-slate-500 md:col-span-3">Only the organization's admins change the fence.</p>
        </dl>
      )}
    </div>
  );
}
