import { Fragment, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { CreatedToken, Member, Page, ServiceAccount } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { Badge } from "../components/Badge";
import { Tokens } from "./Tokens";
import { queryKeys } from "../api/keys";

const ROLES = ["viewer", "member", "admin", "owner"];

function ShownOnce({ token }: { token: CreatedToken | undefined }) {
  if (!token) return null;
  return (
    <div role="status" className="rounded bg-yellow-50 p-3 text-sm">
      Token “{token.name}”, shown only now: <code className="break-all">{token.token}</code>
    </div>
  );
}

export function PeoplePage() {
  return (
    <section aria-labelledby="people-title" className="space-y-8">
      <h1 id="people-title" className="text-2xl font-semibold">
        People
      </h1>
      <Members />
      <ServiceAccounts />
    </section>
  );
}

function Members() {
  const { can, me } = useSession();
  const client = useQueryClient();
  const members = useQuery({ queryKey: queryKeys.members(), queryFn: () => api<Page<Member>>("/members") });
  const [f, setF] = useState({ email: "", name: "", role: "member" });
  const [tokenName, setTokenName] = useState("");
  const add = useMutation({
    mutationFn: () => api<Member>("/members", { body: f }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.members() }),
  });
  const mint = useMutation({
    mutationFn: () => api<CreatedToken>(`/members/${me?.id}/tokens`, { body: { name: tokenName } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.tokens(`/members/${me?.id}`) }),
  });
  const [open, setOpen] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => api<void>(`/members/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.members() }),
  });
  return (
    <div className="space-y-3">
      <h2 className="text-lg font-medium">Members</h2>
      <div className="rounded border border-slate-200 bg-white">
        {members.isPending ? (
          <Loading what="members" />
        ) : members.isError ? (
          <ErrorState error={members.error} />
        ) : members.data.items.length === 0 ? (
          <Empty>No members.</Empty>
        ) : (
          <table className="min-w-full text-left text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Name</th>
                <th className="px-3 py-2">Email</th>
                <th className="px-3 py-2">Role</th>
                <th className="px-3 py-2">Teams</th>
                <th className="px-3 py-2" />
              </tr>
            </thead>
            <tbody>
              {members.data.items.map((m) => {
                const self = m.id === me?.id;
                const manages = self || can("members:write");
                return (
                  <Fragment key={m.id}>
                    <tr className="border-t border-slate-100">
                      <td className="px-3 py-2">{m.name}</td>
                      <td className="px-3 py-2">{m.email}</td>
                      <td className="px-3 py-2">{m.role}</td>
                      <td className="px-3 py-2">{m.teams?.join(", ") || "—"}</td>
                      <td className="space-x-2 px-3 py-2 text-right">
                        {manages && (
                          <Button
                            onClick={() => setOpen(open === m.id ? null : m.id)}
                            aria-label={`Tokens of ${m.email}`}
                            aria-expanded={open === m.id}
                          >
                            Tokens
                          </Button>
                        )}
                        {can("members:write") && !self && (
                          <Button
                            onClick={() => {
                              if (window.confirm(`Remove ${m.email}? Their tokens and sessions stop working at once.`))
                                remove.mutate(m.id);
                            }}
                            disabled={remove.isPending}
                            aria-label={`Remove ${m.email}`}
                          >
                            Remove
                          </Button>
                        )}
                      </td>
                    </tr>
                    {open === m.id && (
                      <tr>
                        <td colSpan={5} className="bg-slate-50 px-3 py-2">
                          <Tokens base={`/members/${m.id}`} label={m.email} canRevoke={manages} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
      {can("members:write") && (
        <form
          aria-label="Add member"
          className="grid gap-2 rounded border border-slate-200 bg-white p-4 md:grid-cols-4"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate();
          }}
        >
          <label className="text-sm">
            Email
            <input
              type="email"
              className={inputClass}
              value={f.email}
              onChange={(e) => setF({ ...f, email: e.target.value })}
              required
            />
          </label>
          <label className="text-sm">
            Name
            <input
              className={inputClass}
              value={f.name}
              onChange={(e) => setF({ ...f, name: e.target.value })}
              required
            />
          </label>
          <label className="text-sm">
            Role
            <select className={inputClass} value={f.role} onChange={(e) => setF({ ...f, role: e.target.value })}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <div className="flex items-end">
            <Button variant="primary" type="submit" disabled={add.isPending}>
              Add member
            </Button>
          </div>
          <div className="md:col-span-4">
            <FormError error={add.error} />
          </div>
        </form>
      )}
      {me?.type === "member" && (
        <form
          aria-label="Create my API token"
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            mint.mutate();
          }}
        >
          <label className="text-sm">
            New API token for me
            <input
              className={inputClass}
              value={tokenName}
              onChange={(e) => setTokenName(e.target.value)}
              required
              placeholder="laptop"
            />
          </label>
          <Button type="submit" disabled={mint.isPending}>
            Create token
          </Button>
        </form>
      )}
      <FormError error={mint.error} />
      <FormError error={remove.error} />
      <ShownOnce token={mint.data} />
    </div>
  );
}

function ServiceAccounts() {
  const { can } = useSession();
  const client = useQueryClient();
  const accounts = useQuery({
    queryKey: queryKeys.serviceAccounts(),
    queryFn: () => api<Page<ServiceAccount>>("/service-accounts"),
  });
  const [f, setF] = useState({ name: "", description: "", scopes: "releases:create, projects:read" });
  const create = useMutation({
    mutationFn: () =>
      api<ServiceAccount>("/service-accounts", {
        body: {
          name: f.name,
          description: f.description,
          scopes: f.scopes
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.serviceAccounts() }),
  });
  const mint = useMutation({
    mutationFn: (id: string) => api<CreatedToken>(`/service-accounts/${id}/tokens`, { body: { name: "ci" } }),
    onSuccess: (_t, id) => client.invalidateQueries({ queryKey: queryKeys.tokens(`/service-accounts/${id}`) }),
  });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: string; body: Record<string, unknown> }) =>
      api<ServiceAccount>(`/service-accounts/${id}`, { method: "PATCH", body }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.serviceAccounts() }),
  });
  const [open, setOpen] = useState<string | null>(null);
  const [scopes, setScopes] = useState<Record<string, string>>({});
  return (
    <div className="space-y-3">
      <h2 className="text-lg font-medium">Service accounts</h2>
      <div className="rounded border border-slate-200 bg-white">
        {accounts.isPending ? (
          <Loading what="service accounts" />
        ) : accounts.isError ? (
          <ErrorState error={accounts.error} />
        ) : accounts.data.items.length === 0 ? (
          <Empty>No service accounts.</Empty>
        ) : (
          <ul className="text-sm">
            {accounts.data.items.map((a) => (
              <li key={a.id} className="border-t border-slate-100 px-3 py-2 first:border-t-0">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{a.name}</span>{" "}
                  <span className="text-slate-500">{a.scopes.join(", ")}</span>
                  {a.disabled && <Badge tone="red">disabled</Badge>}
                  {a.createdByServiceAccount && (
                    <span
                      className="text-slate-500"
                      title="Nobody up this chain of service accounts may approve what this account requests"
                    >
                      made by{" "}
                      {accounts.data.items.find((x) => x.id === a.createdByServiceAccount)?.name ?? "a service account"}
                    </span>
                  )}
                  <span className="ml-auto space-x-2">
                    <Button
                      onClick={() => setOpen(open === a.id ? null : a.id)}
                      aria-label={`Tokens of ${a.name}`}
                      aria-expanded={open === a.id}
                    >
                      Tokens
                    </Button>
                    {can("service-accounts:write") && !a.disabled && (
                      <Button onClick={() => mint.mutate(a.id)} aria-label={`Create token for ${a.name}`}>
                        Create token
                      </Button>
                    )}
                    {can("service-accounts:write") && (
                      <Button
                        onClick={() => update.mutate({ id: a.id, body: { disabled: !a.disabled } })}
                        aria-label={`${a.disabled ? "Enable" : "Disable"} ${a.name}`}
                      >
                        {a.disabled ? "Enable" : "Disable"}
                      </Button>
                    )}
                  </span>
                </div>
                {open === a.id && (
                  <div className="mt-2 space-y-2 rounded bg-slate-50 p-2">
                    <Tokens
                      base={`/service-accounts/${a.id}`}
                      label={a.name}
                      canRevoke={can("service-accounts:write")}
                    />
                    {can("service-accounts:write") && (
                      <form
                        aria-label={`Scopes of ${a.name}`}
                        className="flex flex-wrap items-end gap-2"
                        onSubmit={(e) => {
                          e.preventDefault();
                          const list = (scopes[a.id] ?? a.scopes.join(", "))
                            .split(",")
                            .map((x) => x.trim())
                            .filter(Boolean);
                          update.mutate({ id: a.id, body: { scopes: list } });
                        }}
                      >
                        <label className="text-sm">
                          Scopes (narrowing them narrows every token at once)
                          <input
                            className={inputClass}
                            value={scopes[a.id] ?? a.scopes.join(", ")}
                            onChange={(e) => setScopes({ ...scopes, [a.id]: e.target.value })}
                          />
                        </label>
                        <Button type="submit" disabled={update.isPending}>
                          Save scopes
                        </Button>
                      </form>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      <FormError error={mint.error} />
      <FormError error={update.error} />
      <ShownOnce token={mint.data} />
      {can("service-accounts:write") && (
        <form
          aria-label="New service account"
          className="grid gap-2 rounded border border-slate-200 bg-white p-4 md:grid-cols-3"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="text-sm">
            Name
            <input
              className={inputClass}
              value={f.name}
              onChange={(e) => setF({ ...f, name: e.target.value })}
              required
            />
          </label>
          <label className="text-sm">
            Description
            <input
              className={inputClass}
              value={f.description}
              onChange={(e) => setF({ ...f, description: e.target.value })}
            />
          </label>
          <label className="text-sm">
            Scopes
            <input className={inputClass} value={f.scopes} onChange={(e) => setF({ ...f, scopes: e.target.value })} />
          </label>
          <div className="md:col-span-3">
            <Button variant="primary" type="submit" disabled={create.isPending}>
              Create service account
            </Button>
            <FormError error={create.error} />
          </div>
        </form>
      )}
    </div>
  );
}
