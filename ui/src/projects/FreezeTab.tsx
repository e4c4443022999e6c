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

/** The windows that apply to this project: its own and the organization-wide ones. */
export function FreezeTab({ project }: { project: Project }) {
  const { can } = useSession();
  const client = useQueryClient();
  const windows = useQuery({
    queryKey: queryKeys.freezeWindows(),
    queryFn: () => api<Page<FreezeWindow>>("/freeze-windows"),
  });
  const [f, setF] = useState({ environment: "", startsAt: "", endsAt: "", reason: "", wholeOrg: false });
  const create = useMutation({
    mutationFn: () =>
      api("/freeze-windows", {
        body: {
          ...(f.environment && { environment: f.environment }),
          ...(!f.wholeOrg && { project: project.name }),
          startsAt: f.startsAt && new Date(f.startsAt).toISOString(),
          endsAt: f.endsAt && new Date(f.endsAt).toISOString(),
          reason: f.reason,
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
