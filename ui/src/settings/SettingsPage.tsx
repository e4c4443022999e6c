import { useState } from "react";
import { PlanNote, usePlan } from "../features/plan";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { CreatedOrg, NotificationSettings, Org, Page, Schemas, With } from "../api/types";
import { useSession } from "../auth/session";
import { Badge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { EnvironmentSettings } from "./EnvironmentSettings";
import { queryKeys } from "../api/keys";
import { useOnChange } from "../components/useOnChange";

/**
 * The organization's settings: where its notifications go, whether its environments' deployments
 * are verified, and (operators) its sibling organizations.
 */
export function SettingsPage() {
  const { can, me } = useSession();
  return (
    <section aria-labelledby="settings-title" className="space-y-8">
      <h1 id="settings-title" className="text-2xl font-semibold">
        Settings{me?.org ? ` — ${me.org.name}` : ""}
      </h1>
      {can("org:write") ? (
        <Notifications />
      ) : (
        <p className="text-sm text-slate-600">Notification settings need the org:write permission (admins).</p>
      )}
      {can("projects:read") && <EnvironmentSettings />}
      {can("orgs:write") && <Organizations />}
    </section>
  );
}

function Notifications() {
  const client = useQueryClient();
  const plan = usePlan();
  const gated = !plan.has("FeatureNotifications");
  const settings = useQuery({
    queryKey: queryKeys.notifications(),
    queryFn: () => api<NotificationSettings>("/notifications"),
  });
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  useOnChange(settings.data, (data) => {
    if (data) {
      setUrl(data.source === "organization" ? (data.webhookUrl ?? "") : "");
      setEvents(data.events);
    }
  });
  const save = useMutation({
    mutationFn: () =>
      api<NotificationSettings>("/notifications", {
        method: "PUT",
        body: { webhookUrl: url, secret: secret || undefined, events },
      }),
    onSuccess: () => {
      setSecret("");
      client.invalidateQueries({ queryKey: queryKeys.notifications() });
    },
  });
  const test = useMutation({
    mutationFn: () => api<With<Schemas["TestResult"], "delivered">>("/notifications/test", { method: "POST" }),
  });
  const remove = useMutation({
    mutationFn: () => api<void>("/notifications", { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.notifications() }),
  });
  if (settings.isPending) return <Loading what="notification settings" />;
  if (settings.isError) return <ErrorState error={settings.error} />;
  const s = settings.data;
  return (
    <div className="space-y-3">
      <h2 className="text-lg font-medium">Notifications</h2>
      <p className="text-sm text-slate-600">
        {s.source === "none"
          ? "Events are not sent anywhere."
          : s.source === "configuration"
            ? `Events go to ${s.webhookUrl}, set in the hub's configuration (GITOPSHQ_WEBHOOK_URL) until this organization sets its own.`
            : `Events go to ${s.webhookUrl} (changed ${stamp(s.updatedAt)}).`}
      </p>
      <form
        aria-label="Notification webhook"
        className="space-y-2 rounded border border-slate-200 bg-white p-4"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label className="block text-sm">
          Webhook URL
          <input
            type="url"
            className={inputClass}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required
            placeholder="https://hooks.example.com/gitopshq"
          />
        </label>
        <label className="block text-sm">
          Signing secret{" "}
          {s.source === "organization" ? "(leave empty to keep the current one)" : "(16 characters or more)"}
          <input
            type="password"
            className={inputClass}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            autoComplete="new-password"
          />
        </label>
        <fieldset className="text-sm">
          <legend>Events (none ticked: all)</legend>
          <div className="flex flex-wrap gap-3">
            {s.knownEvents.map((ev) => (
              <label key={ev} className="flex items-center gap-1">
                <input
                  type="checkbox"
                  checked={events.includes(ev)}
                  onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))}
                />
                {ev}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="flex gap-2">
          <Button variant="primary" type="submit" disabled={save.isPending || gated}>
            Save
          </Button>
          {s.source !== "none" && (
            <Button onClick={() => test.mutate()} disabled={test.isPending || gated}>
              Send a test event
            </Button>
          )}
          {s.source === "organization" && (
            <Button onClick={() => remove.mutate()} disabled={remove.isPending || gated}>
              Stop sending
            </Button>
          )}
        </div>
        <PlanNote plan={plan} gate="FeatureNotifications" />
        <FormError error={save.error ?? test.error ?? remove.error} />
        {test.data && (
          <p role="status" className="text-sm">
            {test.data.delivered ? "The receiver accepted the test event." : `Not delivered: ${test.data.error}`}
          </p>
        )}
      </form>
    </div>
  );
}

const PLANS = ["free", "pro", "enterprise"] as const;

/** An organization's plan; the operator organization's owners change it here (audited). */
function PlanSelect({ org }: { org: Org }) {
  const client = useQueryClient();
  const setPlan = useMutation({
    mutationFn: (plan: string) => api<Org>(`/orgs/${org.id}/plan`, { method: "PUT", body: { plan } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.orgs() }),
  });
  return (
    <>
      <select
        aria-label={`Plan of ${org.slug}`}
        className={inputClass}
        value={setPlan.isPending && setPlan.variables ? setPlan.variables : org.plan}
        disabled={setPlan.isPending}
        onChange={(e) => setPlan.mutate(e.target.value)}
      >
        {PLANS.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
      <FormError error={setPlan.error} />
    </>
  );
}

export function Organizations() {
  const client = useQueryClient();
  const orgs = useQuery({ queryKey: queryKeys.orgs(), queryFn: () => api<Page<Org>>("/orgs") });
  const [f, setF] = useState({ slug: "", name: "", email: "", owner: "" });
  const create = useMutation({
    mutationFn: () =>
      api<CreatedOrg>("/orgs", { body: { slug: f.slug, name: f.name, owner: { email: f.email, name: f.owner } } }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.orgs() }),
  });
  return (
    <div className="space-y-3">
      <h2 className="text-lg font-medium">Organizations</h2>
      <div className="rounded border border-slate-200 bg-white">
        {orgs.isPending ? (
          <Loading what="organizations" />
        ) : orgs.isError ? (
          <ErrorState error={orgs.error} />
        ) : orgs.data.items.length === 0 ? (
          <Empty>No organizations.</Empty>
        ) : (
          <table className="min-w-full text-left text-sm" aria-label="Organizations">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">Slug</th>
                <th className="px-3 py-2">Name</th>
                <th className="px-3 py-2">Plan</th>
                <th className="px-3 py-2">Members</th>
                <th className="px-3 py-2">Clusters</th>
                <th className="px-3 py-2">Created</th>
              </tr>
            </thead>
            <tbody>
              {orgs.data.items.map((o) => (
                <tr key={o.id} className="border-t border-slate-100">
                  <td className="px-3 py-2">
                    {o.slug} {o.operator && <Badge tone="blue">operator</Badge>}
                  </td>
                  <td className="px-3 py-2">{o.name}</td>
                  <td className="px-3 py-2">
                    <PlanSelect org={o} />
                  </td>
                  <td className="px-3 py-2">{o.members}</td>
                  <td className="px-3 py-2">{o.clusters}</td>
                  <td className="px-3 py-2">{stamp(o.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <form
        aria-label="New organization"
        className="grid gap-2 rounded border border-slate-200 bg-white p-4 md:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <label className="text-sm">
          Slug
          <input
            className={inputClass}
            value={f.slug}
            onChange={(e) => setF({ ...f, slug: e.target.value })}
            required
            placeholder="acme"
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
          Owner's email
          <input
            type="email"
            className={inputClass}
            value={f.email}
            onChange={(e) => setF({ ...f, email: e.target.value })}
            required
          />
        </label>
        <label className="text-sm">
          Owner's name
          <input
            className={inputClass}
            value={f.owner}
            onChange={(e) => setF({ ...f, owner: e.target.value })}
            required
          />
        </label>
        <div className="md:col-span-4">
          <Button variant="primary" type="submit" disabled={create.isPending}>
            Create organization
          </Button>
          <FormError error={create.error} />
        </div>
      </form>
      {create.data && (
        <div role="status" className="rounded bg-yellow-50 p-3 text-sm">
          Organization “{create.data.org.slug}” created. Its owner {create.data.ownerEmail}'s API token, shown only now:{" "}
          <code className="break-all">{create.data.ownerToken}</code>
        </div>
      )}
    </div>
  );
}
