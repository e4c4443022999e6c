import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Page, TokenView } from "../api/types";
import { StatusBadge } from "../components/Badge";
import { Button } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { relative, stamp } from "../components/time";
import { queryKeys } from "../api/keys";

/**
 * The API tokens of a member or a service account (`base` is `/members/{id}` or
 * `/service-accounts/{id}`): live and past, with last use, and Revoke for the live ones.
 */
export function Tokens({ base, label, canRevoke }: { base: string; label: string; canRevoke: boolean }) {
  const client = useQueryClient();
  const key = queryKeys.tokens(base);
  const tokens = useQuery({ queryKey: key, queryFn: () => api<Page<TokenView>>(`${base}/tokens`) });
  const revoke = useMutation({
    mutationFn: (id: string) => api<TokenView>(`${base}/tokens/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
  if (tokens.isPending) return <Loading what={`tokens of ${label}`} />;
  if (tokens.isError) return <ErrorState error={tokens.error} />;
  if (tokens.data.items.length === 0) return <Empty>No tokens.</Empty>;
  return (
    <div>
      <table className="min-w-full text-left text-sm" aria-label={`Tokens of ${label}`}>
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th className="px-2 py-1">Token</th>
            <th className="px-2 py-1">Scopes</th>
            <th className="px-2 py-1">Status</th>
            <th className="px-2 py-1">Last used</th>
            <th className="px-2 py-1">Expires</th>
            <th className="px-2 py-1" />
          </tr>
        </thead>
        <tbody>
          {tokens.data.items.map((t) => (
            <tr key={t.id} className="border-t border-slate-100">
              <td className="px-2 py-1">{t.name}</td>
              <td className="px-2 py-1">{t.scopes.length ? t.scopes.join(", ") : "the role's"}</td>
              <td className="px-2 py-1">
                <StatusBadge status={t.status} />
              </td>
              <td className="px-2 py-1" title={stamp(t.lastUsedAt)}>
                {t.lastUsedAt ? relative(t.lastUsedAt) : "never"}
              </td>
              <td className="px-2 py-1">{t.expiresAt ? stamp(t.expiresAt) : "never"}</td>
              <td className="px-2 py-1 text-right">
                {canRevoke && t.status === "active" && (
                  <Button
                    onClick={() => revoke.mutate(t.id)}
                    disabled={revoke.isPending}
                    aria-label={`Revoke ${t.name}`}
                  >
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <FormError error={revoke.error} />
    </div>
  );
}
