import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import CodeMirror from "@uiw/react-codemirror";
import { yaml } from "@codemirror/lang-yaml";
import { EditorView } from "@codemirror/view";
import { api, query } from "../api/client";
import type { OrgEnvironment, Page, Project, Schemas, With } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { valuesToYaml, variableBody, yamlToValues, type VariableForm, type VariableScope } from "./configForms";
import { DELIVERY_MODES, DeliveryModeSelect, type DeliveryMode, type EnvironmentCluster } from "./DeliveryModeSelect";
import { queryKeys } from "../api/keys";
import {
  boundByName,
  boundBySelector,
  rowsToSelector,
  selectorText,
  selectorToRows,
  type LabelSelector,
  type SelectorRow,
} from "./clusterSelector";
import { SelectorEditor } from "./SelectorEditor";
import { useOnChange } from "../components/useOnChange";

type Environment = Omit<
  With<Schemas["ProjectViews.ProjectEnvironmentView"], "name" | "position" | "namespacePattern" | "clusters">,
  "clusters"
> & { clusters: EnvironmentCluster[] };
type Workload = With<Schemas["ProjectViews.WorkloadView"], "name" | "chart" | "version">;
type ValuesRow = With<Schemas["ProjectViews.ValuesView"], "workload" | "tenant" | "environment" | "values">;
type Variable = Omit<With<Schemas["DeliveryViews.VariableView"], "scope" | "key" | "value">, "scope"> & {
  scope: VariableScope;
};

const YAML_EXTENSIONS = [yaml(), EditorView.contentAttributes.of({ "aria-label": "Values (YAML)", tabindex: "0" })];

/** A project's configuration: every change here is one commit of config/ in its repository. */
export function ConfigTab({ project }: { project: Project }) {
  const { can } = useSession();
  const writable = can("projects:write");
  const base = `/projects/${project.id}`;
  const client = useQueryClient();
  const refresh = () => {
    client.invalidateQueries({ queryKey: queryKeys.config(project.id) });
    client.invalidateQueries({ queryKey: queryKeys.project(project.id) });
  };
  const envs = useQuery({
    queryKey: queryKeys.configPart(project.id, "environments"),
    queryFn: () => api<Page<Environment>>(`${base}/environments`),
  });
  const tenants = useQuery({
    queryKey: queryKeys.configPart(project.id, "tenants"),
    queryFn: () => api<Page<With<Schemas["ProjectViews.ProjectTenantView"], "name">>>(`${base}/tenants`),
  });
  const workloads = useQuery({
    queryKey: queryKeys.configPart(project.id, "workloads"),
    queryFn: () => api<Page<Workload>>(`${base}/workloads`),
  });
  const orgEnvs = useQuery({
    queryKey: queryKeys.environments(),
    queryFn: () => api<Page<OrgEnvironment>>("/environments"),
  });
  const orgTenants = useQuery({
    queryKey: queryKeys.tenants(),
    queryFn: () => api<Page<With<Schemas["ResourceViews.TenantView"], "name">>>("/tenants"),
  });

  return (
    <div className="space-y-6">
      <p className="text-sm text-slate-600">
        Every change is one commit of <code>config/</code> on <code>main</code>, and starts a delivery generation.
      </p>
      <section aria-labelledby="cfg-envs" className="rounded border border-slate-200 bg-white p-4">
        <h2 id="cfg-envs" className="font-medium">
          Environments
        </h2>
        {envs.isPending ? (
          <Loading what="environments" />
        ) : envs.isError ? (
          <ErrorState error={envs.error} />
        ) : envs.data.items.length === 0 ? (
          <Empty>The project delivers to no environment yet.</Empty>
        ) : (
          <ul className="mt-2 space-y-1 text-sm">
            {envs.data.items.map((e) => (
              <li key={e.name} className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{e.name}</span>
                <span className="text-slate-600">
                  namespace <code>{e.namespacePattern}</code>
                  {e.createNamespace && " (the delivery creates it)"} on {e.clusters.length === 0 && "no cluster"}
                </span>
                {e.clusters.map((c) => (
                  <span key={c.cluster} className="inline-flex items-center gap-1 text-slate-600">
                    {c.cluster}
                    {boundBySelector(c) && (
                      <span className="rounded bg-slate-100 px-1 text-xs">
                        {boundByName(c) ? "named and selected" : "selected"}
                      </span>
                    )}
                    <DeliveryModeSelect base={base} env={e} cluster={c} writable={writable} onDone={refresh} />
                  </span>
                ))}
                {e.clusterSelector && (
                  <span className="text-slate-600">
                    selector <code>{selectorText(e.clusterSelector as LabelSelector)}</code>
                  </span>
                )}
                {writable && (
                  <RemoveButton
                    label={`Remove environment ${e.name}`}
                    path={`${base}/environments/${e.name}`}
                    onDone={refresh}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
        {writable && (
          <EnvironmentForm
            base={base}
            options={(orgEnvs.data?.items ?? []).map((e) => e.name)}
            existing={envs.data?.items ?? []}
            onDone={refresh}
          />
        )}
      </section>

      <section aria-labelledby="cfg-tenants" className="rounded border border-slate-200 bg-white p-4">
        <h2 id="cfg-tenants" className="font-medium">
          Tenants
        </h2>
        {tenants.isPending ? (
          <Loading what="tenants" />
        ) : tenants.isError ? (
          <ErrorState error={tenants.error} />
        ) : tenants.data.items.length === 0 ? (
          <Empty>No tenant is linked.</Empty>
        ) : (
          <ul className="mt-2 flex flex-wrap gap-3 text-sm">
            {tenants.data.items.map((t) => (
              <li key={t.name} className="flex items-center gap-2">
                {t.name}
                {writable && (
                  <RemoveButton label={`Remove tenant ${t.name}`} path={`${base}/tenants/${t.name}`} onDone={refresh} />
                )}
              </li>
            ))}
          </ul>
        )}
        {writable && (
          <LinkTenant base={base} options={(orgTenants.data?.items ?? []).map((t) => t.name)} onDone={refresh} />
        )}
      </section>

      <section aria-labelledby="cfg-workloads" className="rounded border border-slate-200 bg-white p-4">
        <h2 id="cfg-workloads" className="font-medium">
          Workloads
        </h2>
        {workloads.isPending ? (
          <Loading what="workloads" />
        ) : workloads.isError ? (
          <ErrorState error={workloads.error} />
        ) : workloads.data.items.length === 0 ? (
          <Empty>No workload yet.</Empty>
        ) : (
          <ul className="mt-2 space-y-1 text-sm">
            {workloads.data.items.map((w) => (
              <li key={w.name}>
                <span className="font-medium">{w.name}</span> — chart {w.chart} {w.version}
              </li>
            ))}
          </ul>
        )}
        {writable && <NewWorkload base={base} onDone={refresh} />}
      </section>

      <ValuesEditor
        base={base}
        projectId={project.id}
        writable={writable}
        workloads={(workloads.data?.items ?? []).map((w) => w.name)}
        tenants={(tenants.data?.items ?? []).map((t) => t.name)}
        environments={(envs.data?.items ?? []).map((e) => e.name)}
      />
      <Variables base={base} projectId={project.id} writable={writable} />
    </div>
  );
}

function RemoveButton({ label, path, onDone }: { label: string; path: string; onDone: () => void }) {
  const remove = useMutation({ mutationFn: () => api(path, { method: "DELETE" }), onSuccess: onDone });
  return (
    <>
      <Button aria-label={label} onClick={() => remove.mutate()} disabled={remove.isPending}>
        Remove
      </Button>
      <FormError error={remove.error} />
    </>
  );
}

function EnvironmentForm({
  base,
  options,
  existing,
  onDone,
}: {
  base: string;
  options: string[];
  existing: Environment[];
  onDone: () => void;
}) {
  const [f, setF] = useState({
    name: "",
    namespacePattern: "",
    createNamespace: false,
    clusters: "",
    deliveryMode: "argocd" as DeliveryMode,
    selecting: false,
    rules: [] as SelectorRow[],
  });
  // Choosing an environment the project has fills the form with it (the save replaces it whole).
  const choose = (name: string) => {
    const e = existing.find((x) => x.name === name);
    setF(
      e
        ? {
            name,
            namespacePattern: e.namespacePattern,
            createNamespace: e.createNamespace ?? false,
            clusters: e.clusters
              .filter(boundByName)
              .map((c) => c.cluster)
              .join(", "),
            deliveryMode: (e.selectorDeliveryMode ?? "argocd") as DeliveryMode,
            selecting: !!e.clusterSelector,
            rules: selectorToRows(e.clusterSelector as LabelSelector | undefined),
          }
        : { ...f, name },
    );
  };
  const save = useMutation({
    mutationFn: () =>
      api(`${base}/environments/${f.name}`, {
        method: "PUT",
        body: {
          ...(f.namespacePattern && { namespacePattern: f.namespacePattern }),
          createNamespace: f.createNamespace,
          deliveryMode: f.deliveryMode,
          clusters: f.clusters
            .split(",")
            .map((c) => c.trim())
            .filter(Boolean)
            .map((cluster) => ({ cluster })),
          ...(f.selecting && { clusterSelector: rowsToSelector(f.rules) }),
        },
      }),
    onSuccess: onDone,
  });
  return (
    <form
      aria-label="Add or replace an environment"
      className="mt-3 grid gap-2 md:grid-cols-5"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <label className="text-sm">
        Environment
        <select className={inputClass} value={f.name} onChange={(e) => choose(e.target.value)} required>
          <option value="">choose…</option>
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </label>
      <label className="text-sm">
        Namespace pattern
        <input
          className={inputClass}
          value={f.namespacePattern}
          onChange={(e) => setF({ ...f, namespacePattern: e.target.value })}
          placeholder="{{ .tenant }}-{{ .environment }}"
        />
      </label>
      <label className="text-sm">
        Clusters (names, comma separated)
        <input className={inputClass} value={f.clusters} onChange={(e) => setF({ ...f, clusters: e.target.value })} />
      </label>
      <label className="text-sm">
        Delivery mode
        <select
          className={inputClass}
          value={f.deliveryMode}
          onChange={(e) => setF({ ...f, deliveryMode: e.target.value as DeliveryMode })}
        >
          {DELIVERY_MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <div className="flex items-end">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save environment
        </Button>
      </div>
      <label className="flex items-center gap-2 text-sm md:col-span-5">
        <input
          type="checkbox"
          checked={f.createNamespace}
          onChange={(e) => setF({ ...f, createNamespace: e.target.checked })}
        />
        Create namespaces (the delivery writes the Namespace objects; leave off when the platform team creates them)
      </label>
      <label className="flex items-center gap-2 text-sm md:col-span-5">
        <input type="checkbox" checked={f.selecting} onChange={(e) => setF({ ...f, selecting: e.target.checked })} />
        Also bind clusters by label selector
      </label>
      {f.selecting && (
        <div className="md:col-span-5">
          <SelectorEditor rows={f.rules} onChange={(rules) => setF({ ...f, rules })} />
        </div>
      )}
      <div className="md:col-span-5">
        <FormError error={save.error} />
      </div>
    </form>
  );
}

function LinkTenant({ base, options, onDone }: { base: string; options: string[]; onDone: () => void }) {
  const [name, setName] = useState("");
  const link = useMutation({ mutationFn: () => api(`${base}/tenants/${name}`, { method: "PUT" }), onSuccess: onDone });
  return (
    <form
      aria-label="Link a tenant"
      className="mt-3 flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        link.mutate();
      }}
    >
      <label className="text-sm">
        Tenant
        <select className={inputClass} value={name} onChange={(e) => setName(e.target.value)} required>
          <option value="">choose…</option>
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </label>
      <Button type="submit" disabled={link.isPending}>
        Link tenant
      </Button>
      <FormError error={link.error} />
    </form>
  );
}

function NewWorkload({ base, onDone }: { base: string; onDone: () => void }) {
  const [f, setF] = useState({ name: "", chart: "", version: "" });
  const create = useMutation({ mutationFn: () => api(`${base}/workloads`, { body: f }), onSuccess: onDone });
  return (
    <form
      aria-label="New workload"
      className="mt-3 grid gap-2 md:grid-cols-4"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      {(["name", "chart", "version"] as const).map((k) => (
        <label key={k} className="text-sm capitalize">
          {k}
          <input className={inputClass} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.target.value })} required />
        </label>
      ))}
      <div className="flex items-end">
        <Button type="submit" disabled={create.isPending}>
          Add workload
        </Button>
      </div>
      <div className="md:col-span-4">
        <FormError error={create.error} />
      </div>
    </form>
  );
}

function ValuesEditor(props: {
  base: string;
  projectId: string;
  writable: boolean;
  workloads: string[];
  tenants: string[];
  environments: string[];
}) {
  const client = useQueryClient();
  const [sel, setSel] = useState({ workload: "", tenant: "", environment: "" });
  const [text, setText] = useState("");
  const all = useQuery({
    queryKey: queryKeys.configPart(props.projectId, "values"),
    queryFn: () => api<Page<ValuesRow>>(`${props.base}/values`),
  });
  const complete = sel.workload && sel.tenant && sel.environment;
  const path = `${props.base}/values/${sel.workload}/${sel.tenant}/${sel.environment}`;
  // The selected row's values, whenever the selection or the rows change.
  const selected = useMemo(
    () => ({
      row: all.data?.items.find(
        (r) => r.workload === sel.workload && r.tenant === sel.tenant && r.environment === sel.environment,
      ),
    }),
    [all.data, sel],
  );
  useOnChange(selected, ({ row }) => setText(valuesToYaml(row?.values)));
  const save = useMutation({
    mutationFn: () => api(path, { method: "PUT", body: { values: yamlToValues(text) } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.config(props.projectId) }),
  });
  const pick = (k: keyof typeof sel, options: string[]) => (
    <label className="text-sm capitalize">
      {k}
      <select className={inputClass} value={sel[k]} onChange={(e) => setSel({ ...sel, [k]: e.target.value })}>
        <option value="">choose…</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="cfg-values" className="rounded border border-slate-200 bg-white p-4">
      <h2 id="cfg-values" className="font-medium">
        Values
      </h2>
      <p className="text-xs text-slate-500">
        Per workload, tenant and environment, merged over the workload's own values.
      </p>
      <div className="mt-2 grid gap-2 md:grid-cols-3">
        {pick("workload", props.workloads)}
        {pick("tenant", props.tenants)}
        {pick("environment", props.environments)}
      </div>
      {all.isError && <ErrorState error={all.error} />}
      {complete && (
        <div className="mt-3 space-y-2">
          <div className="rounded border border-slate-200">
            <CodeMirror
              value={text}
              onChange={setText}
              height="200px"
              extensions={YAML_EXTENSIONS}
              editable={props.writable}
            />
          </div>
          {props.writable && (
            <Button variant="primary" onClick={() => save.mutate()} disabled={save.isPending}>
              Save values
            </Button>
          )}
          {save.isSuccess && (
            <span role="status" className="ml-2 text-sm text-green-800">
              Saved
            </span>
          )}
          <FormError error={save.error} />
        </div>
      )}
    </section>
  );
}

function Variables({ base, projectId, writable }: { base: string; projectId: string; writable: boolean }) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: queryKeys.configPart(projectId, "variables"),
    queryFn: () => api<Page<Variable>>(`${base}/variables`),
  });
  const [f, setF] = useState<VariableForm>({
    scope: "project",
    environment: "",
    tenant: "",
    service: "",
    key: "",
    value: "",
  });
  const set = useMutation({
    mutationFn: () => api(`${base}/variables`, { method: "PUT", body: variableBody(f) }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.configPart(projectId, "variables") }),
  });
  const remove = useMutation({
    mutationFn: (v: Variable) =>
      api(
        `${base}/variables${query({ scope: v.scope, environment: v.environment, tenant: v.tenant, service: v.service, key: v.key })}`,
        { method: "DELETE" },
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.configPart(projectId, "variables") }),
  });
  return (
    <section aria-labelledby="cfg-vars" className="rounded border border-slate-200 bg-white p-4">
      <h2 id="cfg-vars" className="font-medium">
        Variables
      </h2>
      {list.isPending ? (
        <Loading what="variables" />
      ) : list.isError ? (
        <ErrorState error={list.error} />
      ) : list.data.items.length === 0 ? (
        <Empty>No variable of this project (organization variables apply too).</Empty>
      ) : (
        <ul className="mt-2 space-y-1 text-sm">
          {list.data.items.map((v) => (
            <li
              key={`${v.scope}/${v.environment ?? v.tenant ?? v.service ?? ""}/${v.key}`}
              className="flex flex-wrap items-center gap-2"
            >
              <code>{v.key}</code> = <code>{v.value}</code>
              <span className="text-slate-500">
                ({v.scope}
                {v.scope !== "project" ? ` ${v.environment ?? v.tenant ?? v.service}` : ""})
              </span>
              {writable && (
                <Button aria-label={`Delete variable ${v.key}`} onClick={() => remove.mutate(v)}>
                  Delete
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {writable && (
        <form
          aria-label="Set a variable"
          className="mt-3 grid gap-2 md:grid-cols-5"
          onSubmit={(e) => {
            e.preventDefault();
            set.mutate();
          }}
        >
          <label className="text-sm">
            Scope
            <select
              className={inputClass}
              value={f.scope}
              onChange={(e) => setF({ ...f, scope: e.target.value as VariableScope })}
            >
              {(["project", "environment", "tenant", "service"] as const).map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          {f.scope !== "project" ? (
            <label className="text-sm capitalize">
              {f.scope}
              <input
                className={inputClass}
                value={f[f.scope]}
                onChange={(e) => setF({ ...f, [f.scope]: e.target.value })}
                required
              />
            </label>
          ) : (
            <span />
          )}
          <label className="text-sm">
            Key
            <input
              className={inputClass}
              value={f.key}
              onChange={(e) => setF({ ...f, key: e.target.value })}
              required
            />
          </label>
          <label className="text-sm">
            Value
            <input className={inputClass} value={f.value} onChange={(e) => setF({ ...f, value: e.target.value })} />
          </label>
          <div className="flex items-end">
            <Button type="submit" disabled={set.isPending}>
              Set variable
            </Button>
          </div>
          <div className="md:col-span-5">
            <FormError error={set.error ?? remove.error} />
          </div>
        </form>
      )}
    </section>
  );
}
