import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { FreezeWindow, Page, Project } from "../api/types";
import { Badge } from "../components/Badge";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";
import { COMMAND_TYPES } from "../api/commandTypes";

/** The command types a window can hold: those a person requests, and drift resolution. */
/** Every command type command_types.proto declares, resolve-drift included. */
const FREEZABLE: string[] = COMMAND_TYPES.map((t) => t.name);

/** What a window holds besides deployments, in words. */
export function commandsLabel(types: string[] | undefined): string | null {
  if (!types || types.length === 0) return null;
  return types.includes("all") ? "every command" : `${types.join(", ")} commands`;
}

/** The windows that apply to this project: its own and the organization-wide ones. */
export function FreezeTab({ project }: { project: Project }) {
  const { can } = useSession();
  const client = useQueryClient();
  const windows = useQuery({
    queryKey: queryKeys.freezeWindows(),
    queryFn: () => api<Page<FreezeWindow>>("/freeze-windows"),
  });
  const [f, setF] = useState({ environment: "", startsAt: "", endsAt: "", reason: "", wholeOrg: false });
  // The command types the window also holds; "all" for every one. Only a window for every project
  // holds commands: a command acts on a cluster, not on one project.
  const [commands, setCommands] = useState<string[]>([]);
  const toggle = (t: string, on: boolean) =>
    setCommands(on ? [...commands.filter((x) => t !== "all" && x !== "all"), t] : commands.filter((x) => x !== t));
  const create = useMutation({
    mutationFn: () =>
      api("/freeze-windows", {
        body: {
          ...(f.environment && { environment: f.environment }),
          ...(!f.wholeOrg && { project: project.name }),
          startsAt: f.startsAt && new Date(f.startsAt).toISOString(),
          endsAt: f.endsAt && new Date(f.endsAt).toISOString(),
          reason: f.reason,
          ...(f.wholeOrg && commands.length > 0 && { commandTypes: commands }),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.freezeWindows() }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/freeze-windows/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.freezeWindows() }),
  });
  const mine = (windows.data?.items ?? []).filter((w) => !w.project || w.project === project.name);
  return (
    <div className="space-y-4">
      <div className="rounded border border-slate-200 bg-white">
        {windows.isPending ? (
          <Loading what="freeze windows" />
        ) : windows.isError ? (
          <ErrorState error={windows.error} />
        ) : mine.length === 0 ? (
          <Empty>No freeze window covers this project.</Empty>
        ) : (
          <ul className="text-sm">
            {mine.map((w) => (
              <li
                key={w.id}
                className={`flex flex-wrap items-center gap-2 border-t border-slate-100 px-3 py-2 first:border-t-0 ${w.active ? "bg-red-50" : ""}`}
              >
                {w.active && <Badge tone="red">active</Badge>}
                <span>
                  {w.environment ?? "every environment"} · {w.project ?? "every project"} · {stamp(w.startsAt)} →{" "}
                  {stamp(w.endsAt)} — {w.reason}
                </span>
                {commandsLabel(w.commandTypes) && (
                  <Badge tone="orange">{`also ${commandsLabel(w.commandTypes)}`}</Badge>
                )}
                {can("org:write") && (
                  <Button
                    className="ml-auto"
                    onClick={() => remove.mutate(w.id)}
                    aria-label={`Delete freeze window ${w.reason}`}
                  >
                    Delete
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      {can("org:write") && (
        <form
          aria-label="New freeze window"
          className="grid gap-2 rounded border border-slate-200 bg-white p-4 md:grid-cols-2"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="text-sm">
            Environment (empty: all)
            <input
              className={inputClass}
              value={f.environment}
              onChange={(e) => setF({ ...f, environment: e.target.value })}
            />
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={f.wholeOrg} onChange={(e) => setF({ ...f, wholeOrg: e.target.checked })} />{" "}
            Every project
          </label>
          <fieldset className="text-sm md:col-span-2" disabled={!f.wholeOrg}>
            <legend>Also hold commands (only a window for every project does)</legend>
            <div className="flex flex-wrap gap-3">
              {["all", ...FREEZABLE].map((t) => (
                <label key={t} className="flex items-center gap-1">
                  <input type="checkbox" checked={commands.includes(t)} onChange={(e) => toggle(t, e.target.checked)} />
                  {t === "all" ? "every command" : t}
                </label>
              ))}
            </div>
          </fieldset>
          <label className="text-sm">
            Starts
            <input
              type="datetime-local"
              className={inputClass}
              value={f.startsAt}
              onChange={(e) => setF({ ...f, startsAt: e.target.value })}
              required
            />
          </label>
          <label className="text-sm">
            Ends
            <input
              type="datetime-local"
              className={inputClass}
              value={f.endsAt}
              onChange={(e) => setF({ ...f, endsAt: e.target.value })}
              required
            />
          </label>
          <label className="text-sm md:col-span-2">
            Reason
            <input
              className={inputClass}
              value={f.reason}
              onChange={(e) => setF({ ...f, reason: e.target.value })}
              required
            />
          </label>
          <div className="md:col-span-2">
            <Button variant="primary" type="submit" disabled={create.isPending}>
              Create freeze window
            </Button>
            <FormError error={create.error ?? remove.error} />
          </div>
        </form>
      )}
    </div>
  );
}
