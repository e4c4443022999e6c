import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Cluster, Page } from "../api/types";
import { useSession } from "../auth/session";
import { StatusBadge } from "../components/Badge";
import { DeniedByPolicy } from "./DeniedByPolicy";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { type Credential, credentialData, parseTargets } from "./types";
import { queryKeys } from "../api/keys";

/**
 * The organization's credentials (credentials:write): create one with a form for its type, replace
 * its values, assign it to clusters and namespaces, delete it. Values are write-only: the page never
 * shows them, only key names and, for TLS, the certificate fingerprint.
 */
export function CredentialsPage() {
  const { can } = useSession();
  if (!can("credentials:write"))
    return (
      <section aria-labelledby="credentials-title" className="space-y-3">
        <h1 id="credentials-title" className="text-2xl font-semibold">
          Credentials
        </h1>
        <p className="text-sm text-slate-600">
          Managing credentials needs the credentials:write permission (admins). Each cluster's Credentials tab shows
          their sync status.
        </p>
      </section>
    );
  return <Credentials />;
}

function Credentials() {
  const list = useQuery({
    queryKey: queryKeys.credentials(),
    queryFn: () => api<Page<Credential>>("/credentials"),
    refetchInterval: 10_000,
  });
  return (
    <section aria-labelledby="credentials-title" className="space-y-6">
      <h1 id="credentials-title" className="text-2xl font-semibold">
        Credentials
      </h1>
      <p className="text-sm text-slate-600">
        Image pull secrets, TLS certificates and opaque values, encrypted at rest and synced by agents with the
        credential.sync capability as Secrets into their target namespaces. Values are write-only.
      </p>
      {list.isPending ? (
        <Loading what="credentials" />
      ) : list.isError ? (
        <ErrorState error={list.error} />
      ) : list.data.items.length === 0 ? (
        <Empty>No credentials yet.</Empty>
      ) : (
        <div className="space-y-4">
          {list.data.items.map((c) => (
            <CredentialCard key={c.id} credential={c} />
          ))}
        </div>
      )}
      <CreateCredential />
    </section>
  );
}

type Fields = { dockerconfigjson: string; crt: string; key: string; pairs: { key: string; value: string }[] };
const EMPTY: Fields = { dockerconfigjson: "", crt: "", key: "", pairs: [{ key: "", value: "" }] };

/** The value inputs of one credential type. Password-like, never pre-filled. */
function ValueFields({ type, f, setF }: { type: Credential["type"]; f: Fields; setF: (f: Fields) => void }) {
  if (type === "dockerconfigjson")
    return (
      <label className="block text-sm">
        Docker config JSON (with "auths")
        <textarea
          className={inputClass}
          rows={4}
          value={f.dockerconfigjson}
          onChange={(e) => setF({ ...f, dockerconfigjson: e.target.value })}
          required
        />
      </label>
    );
  if (type === "tls")
    return (
      <>
        <label className="block text-sm">
          Certificate (PEM)
          <textarea
            className={inputClass}
            rows={4}
            value={f.crt}
            onChange={(e) => setF({ ...f, crt: e.target.value })}
            required
          />
        </label>
        <label className="block text-sm">
          Private key (PEM)
          <textarea
            className={inputClass}
            rows={4}
            value={f.key}
            onChange={(e) => setF({ ...f, key: e.target.value })}
            required
          />
        </label>
      </>
    );
  return (
    <fieldset className="space-y-2 text-sm">
      <legend>Keys and values</legend>
      {f.pairs.map((p, i) => (
        <div key={i} className="flex gap-2">
          <input
            aria-label={`Key ${i + 1}`}
            className={inputClass}
            value={p.key}
            onChange={(e) =>
              setF({ ...f, pairs: f.pairs.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)) })
            }
          />
          <input
            aria-label={`Value ${i + 1}`}
            type="password"
            autoComplete="new-password"
            className={inputClass}
            value={p.value}
            onChange={(e) =>
              setF({ ...f, pairs: f.pairs.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)) })
            }
          />
        </div>
      ))}
      <Button onClick={() => setF({ ...f, pairs: [...f.pairs, { key: "", value: "" }] })}>Add a key</Button>
    </fieldset>
  );
}

function CreateCredential() {
  const client = useQueryClient();
  const [name, setName] = useState("");
  const [type, setType] = useState<Credential["type"]>("dockerconfigjson");
  const [description, setDescription] = useState("");
  const [f, setF] = useState<Fields>(EMPTY);
  const create = useMutation({
    mutationFn: () =>
      api<Credential>("/credentials", { body: { name, type, description, data: credentialData(type, f) } }),
    onSuccess: () => {
      setF(EMPTY);
      setName("");
      setDescription("");
      client.invalidateQueries({ queryKey: queryKeys.credentials() });
    },
  });
  return (
    <form
      aria-label="New credential"
      className="space-y-2 rounded border border-slate-200 bg-white p-4"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2 className="text-lg font-medium">New credential</h2>
      <div className="grid gap-2 md:grid-cols-3">
        <label className="text-sm">
          Name
          <input
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            placeholder="registry-pull"
          />
        </label>
        <label className="text-sm">
          Type
          <select className={inputClass} value={type} onChange={(e) => setType(e.target.value as Credential["type"])}>
            <option value="dockerconfigjson">Image pull secret (dockerconfigjson)</option>
            <option value="tls">TLS certificate and key</option>
            <option value="opaque">Opaque key-values</option>
          </select>
        </label>
        <label className="text-sm">
          Description
          <input className={inputClass} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      <ValueFields type={type} f={f} setF={setF} />
      <Button variant="primary" type="submit" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create credential"}
      </Button>
      <FormError error={create.error} />
    </form>
  );
}

function CredentialCard({ credential: c }: { credential: Credential }) {
  const client = useQueryClient();
  const clusters = useQuery({ queryKey: queryKeys.clusters(), queryFn: () => api<Page<Cluster>>("/clusters") });
  const [editing, setEditing] = useState<"" | "values" | "targets">("");
  const [f, setF] = useState<Fields>(EMPTY);
  const [targets, setTargets] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);
  const done = () => {
    setEditing("");
    setF(EMPTY);
    client.invalidateQueries({ queryKey: queryKeys.credentials() });
  };
  const update = useMutation({
    mutationFn: () =>
      api<Credential>(`/credentials/${c.id}`, { method: "PUT", body: { data: credentialData(c.type, f) } }),
    onSuccess: done,
  });
  const assign = useMutation({
    mutationFn: (body: { clusterId: string; namespaces: string[] }[]) =>
      api<Credential>(`/credentials/${c.id}/assignments`, { method: "PUT", body: { assignments: body } }),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: () => api<void>(`/credentials/${c.id}`, { method: "DELETE" }),
    onSuccess: done,
  });
  const current = Object.entries(
    c.targets.reduce<Record<string, string[]>>(
      (m, t) => ({ ...m, [t.clusterName]: [...(m[t.clusterName] ?? []), t.namespace] }),
      {},
    ),
  )
    .map(([k, v]) => `${k}=${v.join(",")}`)
    .join("\n");
  return (
    <article aria-label={`Credential ${c.name}`} className="rounded border border-slate-200 bg-white p-4 text-sm">
      <div className="flex flex-wrap items-baseline gap-3">
        <h2 className="text-base font-medium">{c.name}</h2>
        <span className="text-slate-500">{c.type}</span>
        <span className="text-slate-500">version {c.version}</span>
        <span className="text-slate-500">keys: {c.keys.join(", ")}</span>
        {c.fingerprint && <code className="break-all text-xs text-slate-500">{c.fingerprint}</code>}
        <span className="text-slate-500">changed {stamp(c.updatedAt)}</span>
      </div>
      {c.description && <p className="text-slate-600">{c.description}</p>}
      {c.targets.length === 0 ? (
        <p className="mt-2 text-slate-500">Not assigned to any cluster.</p>
      ) : (
        <ul className="mt-2 space-y-1">
          {c.targets.map((t) => (
            <li key={`${t.clusterId}/${t.namespace}`}>
              {t.clusterName}/{t.namespace} <StatusBadge status={t.status} />
              {t.deniedByPolicy && <DeniedByPolicy />} {t.error && <span className="text-red-800">{t.error}</span>}
            </li>
          ))}
        </ul>
      )}
      <div className="mt-3 flex gap-2">
        <Button onClick={() => setEditing(editing === "values" ? "" : "values")}>Replace values</Button>
        <Button
          onClick={() => {
            setTargets(current);
            setEditing(editing === "targets" ? "" : "targets");
          }}
        >
          Assign clusters
        </Button>
        <Button
          onClick={() =>
            window.confirm(`Delete ${c.name}? Its Secrets are removed from every cluster.`) && remove.mutate()
          }
        >
          Delete
        </Button>
      </div>
      {editing === "values" && (
        <form
          aria-label={`New values of ${c.name}`}
          className="mt-3 space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate();
          }}
        >
          <ValueFields type={c.type} f={f} setF={setF} />
          <Button variant="primary" type="submit" disabled={update.isPending}>
            Save values
          </Button>
        </form>
      )}
      {editing === "targets" && (
        <form
          aria-label={`Targets of ${c.name}`}
          className="mt-3 space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            try {
              setParseError(null);
              assign.mutate(parseTargets(targets, clusters.data?.items ?? []));
            } catch (err) {
              setParseError((err as Error).message);
            }
          }}
        >
          <label className="block">
            One cluster per line: cluster=namespace,namespace (empty: unassign everywhere)
            <textarea className={inputClass} rows={3} value={targets} onChange={(e) => setTargets(e.target.value)} />
          </label>
          <Button variant="primary" type="submit" disabled={assign.isPending}>
            Save targets
          </Button>
          {parseError && (
            <p role="alert" className="text-red-800">
              {parseError}
            </p>
          )}
        </form>
      )}
      <FormError error={update.error ?? assign.error ?? remove.error} />
    </article>
  );
}
