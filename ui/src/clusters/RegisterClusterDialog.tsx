import { useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Registration } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { FormError } from "../components/States";
import { TokenShownOnce } from "./TokenShownOnce";
import { queryKeys } from "../api/keys";

const PROVIDERS = ["eks", "gke", "aks", "on-prem", "openshift", "k3s", "kind", "other"];

/** Parses "k=v, k2=v2" into labels. */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const i = part.search(/[=:]/);
    if (i < 0) labels[part] = "";
    else labels[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return labels;
}

export function RegisterClusterDialog({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [form, setForm] = useState({
    name: "",
    displayName: "",
    provider: "",
    region: "",
    environment: "",
    labels: "",
    acceptance: "",
  });
  const register = useMutation({
    mutationFn: () =>
      api<Registration>("/clusters", {
        body: {
          name: form.name,
          ...(form.displayName && { displayName: form.displayName }),
          ...(form.provider && { provider: form.provider }),
          ...(form.region && { region: form.region }),
          ...(form.environment && { environment: form.environment }),
          labels: parseLabels(form.labels),
          ...(form.acceptance && { requireAcceptance: form.acceptance === "required" }),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.clusters() }),
  });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate();
  };
  return (
    <div
      role="dialog"
      aria-modal="true"
      aria-labelledby="register-title"
      className="fixed inset-0 z-10 flex items-center justify-center bg-black/30 p-4"
    >
      <div className="w-full max-w-lg rounded-lg bg-white p-5 shadow-xl">
        <h2 id="register-title" className="text-lg font-semibold">
          Register cluster
        </h2>
        {register.data ? (
          <div className="mt-3">
            <TokenShownOnce registration={register.data} />
            <div className="mt-4 text-right">
              <Button variant="primary" onClick={onClose}>
                Done
              </Button>
            </div>
          </div>
        ) : (
          <form onSubmit={submit} className="mt-3 space-y-3">
            <label className="block text-sm">
              Name
              <input
                className={inputClass}
                value={form.name}
                onChange={set("name")}
                required
                maxLength={63}
                placeholder="prod-eu"
              />
            </label>
            <label className="block text-sm">
              Display name
              <input className={inputClass} value={form.displayName} onChange={set("displayName")} />
            </label>
            <div className="grid grid-cols-2 gap-2">
              <label className="block text-sm">
                Provider
                <select className={inputClass} value={form.provider} onChange={set("provider")}>
                  <option value="">—</option>
                  {PROVIDERS.map((p) => (
                    <option key={p}>{p}</option>
                  ))}
                </select>
              </label>
              <label className="block text-sm">
                Region
                <input className={inputClass} value={form.region} onChange={set("region")} />
              </label>
            </div>
            <label className="block text-sm">
              Environment
              <input
                className={inputClass}
                value={form.environment}
                onChange={set("environment")}
                placeholder="production"
              />
            </label>
            <label className="block text-sm">
              Labels
              <input
                className={inputClass}
                value={form.labels}
                onChange={set("labels")}
                placeholder="tier=production, team=platform"
              />
            </label>
            <label className="block text-sm">
              Admin acceptance
              <select className={inputClass} value={form.acceptance} onChange={set("acceptance")}>
                <option value="">the organization&apos;s setting</option>
                <option value="required">required: the agent waits for an admin</option>
                <option value="none">not required</option>
              </select>
            </label>
            <FormError error={register.error} />
            <div className="flex justify-end gap-2">
              <Button onClick={onClose}>Cancel</Button>
              <Button variant="primary" type="submit" disabled={register.isPending}>
                {register.isPending ? "Registering…" : "Register"}
              </Button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}
