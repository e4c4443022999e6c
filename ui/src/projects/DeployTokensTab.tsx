import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Page, Project, Schemas, With } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";

type DeployToken = With<Schemas["DeployTokenController.TokenView"], "id" | "name" | "createdAt">;

export function DeployTokensTab({ project }: { project: Project }) {
  const { can } = useSession();
  const client = useQueryClient();
  const [name, setName] = useState("");
  const tokens = useQuery({
    queryKey: queryKeys.deployTokens(project.id),
    queryFn: () => api<Page<DeployToken>>(`/projects/${project.id}/deploy-tokens`),
  });
  const issue = useMutation({
    mutationFn: () =>
      api<With<Schemas["IssuedView"], "token" | "cloneUrl" | "username">>(`/projects/${project.id}/deploy-tokens`, {
        body: { name },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.deployTokens(project.id) }),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/projects/${project.id}/deploy-tokens/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.deployTokens(project.id) }),
  });
  return (
    <div className="space-y-4">
      {can("projects:admin") && (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            issue.mutate();
          }}
        >
          <label className="text-sm">
            Token name
            <input
              className={inputClass}
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              placeholder="argocd-production"
            />
          </label>
          <Button variant="primary" type="submit" disabled={issue.isPending}>
            Issue deploy token
          </Button>
        </form>
      )}
      <FormError error={issue.error ?? revoke.error} />
      {issue.data && (
        <div role="status" className="rounded bg-yellow-50 p-3 text-sm">
          Shown only now: <code className="break-all">{issue.data.token}</code> — clone with user{" "}
          <code>{issue.data.username}</code> from <code>{issue.data.cloneUrl}</code>
        </div>
      )}
      <div className="rounded border border-slate-200 bg-white">
        {tokens.isPending ? (
          <Loading what="deploy tokens" />
        ) : tokens.isError ? (
          <ErrorState error={tokens.error} />
        ) : tokens.data.items.length === 0 ? (
          <Empty>No deploy tokens.</Empty>
        ) : (
          <ul className="text-sm">
            {tokens.data.items.map((t) => (
              <li
                key={t.id}
                className="flex flex-wrap items-center gap-2 border-t border-slate-100 px-3 py-2 first:border-t-0"
              >
                <span className="font-medium">{t.name}</span>
                <span className="text-slate-500">
                  created {stamp(t.createdAt)}, last used {stamp(t.lastUsedAt)}
                  {t.revokedAt ? `, revoked ${stamp(t.revokedAt)}` : ""}
                </span>
                {can("projects:admin") && !t.revokedAt && (
                  <Button className="ml-auto" onClick={() => revoke.mutate(t.id)} aria-label={`Revoke ${t.name}`}>
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
