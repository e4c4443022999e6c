import { useState } from "react";
import { Link } from "react-router-dom";
import { useMutation, useQuery } from "@tanstack/react-query";
import { api, query } from "../api/client";
import type { AuditEntry, AuditVerify, Page } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { TimeRange, toIso } from "../components/TimeRange";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { stamp } from "../components/time";
import { ReplayForm } from "./ReplayForm";
import { queryKeys } from "../api/keys";

/** Where an audit entry's target lives in the UI, when it has a page. */
export function targetLink(t: { type: string; id: string }): string | null {
  switch (t.type) {
    case "cluster":
      return `/clusters/${t.id}/overview`;
    case "command":
      return `/commands/${t.id}`;
    case "project":
      return `/projects/${t.id}/releases`;
    case "policy":
      return `/policies/${t.id}`;
    default:
      return null;
  }
}

export function AuditPage() {
  const [filters, setFilters] = useState({ actor: "", action: "", target: "", from: "", to: "" });
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: queryKeys.audit(filters, cursor),
    queryFn: () =>
      api<Page<AuditEntry>>(
        `/audit${query({
          ...filters,
          from: toIso(filters.from),
          to: toIso(filters.to),
          limit: 50,
          cursor,
        })}`,
      ),
  });
  const verify = useMutation({ mutationFn: () => api<AuditVerify>("/audit/verify") });
  const set = (k: keyof typeof filters) => (e: { target: { value: string } }) => {
    setCursors([]);
    setFilters({ ...filters, [k]: e.target.value });
  };
  return (
    <section aria-labelledby="audit-title">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 id="audit-title" className="text-2xl font-semibold">
          Audit log
        </h1>
        <div className="flex items-center gap-2">
          <Button onClick={() => verify.mutate()} disabled={verify.isPending}>
            Verify chain
          </Button>
          {verify.data && (
            <span role="status" className={`text-sm ${verify.data.valid ? "text-green-800" : "text-red-800"}`}>
              {verify.data.valid
                ? `Chain intact: ${verify.data.entriesChecked} entries checked`
                : `Chain broken at entry ${verify.data.firstBrokenSeq}: ${verify.data.reason}`}
            </span>
          )}
        </div>
      </div>
      <FormError error={verify.error} />
      <div className="mt-4 grid grid-cols-2 gap-2 md:grid-cols-5">
        {(["actor", "action", "target"] as const).map((k) => (
          <label key={k} className="text-sm capitalize">
            {k}
            <input className={inputClass} value={filters[k]} onChange={set(k)} />
          </label>
        ))}
        <TimeRange from={filters.from} to={filters.to} onChange={(k, v) => set(k)({ target: { value: v } })} />
      </div>
      <div className="mt-4 overflow-x-auto rounded border border-slate-200 bg-white">
        {page.isPending ? (
          <Loading what="audit entries" />
        ) : page.isError ? (
          <ErrorState error={page.error} />
        ) : page.data.items.length === 0 ? (
          <Empty>No entries match.</Empty>
        ) : (
          <table className="min-w-full text-left text-sm">
            <thead className="bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">#</th>
                <th className="px-3 py-2">When</th>
                <th className="px-3 py-2">Actor</th>
                <th className="px-3 py-2">Action</th>
                <th className="px-3 py-2">Target</th>
                <th className="px-3 py-2">Hash</th>
              </tr>
            </thead>
            <tbody>
              {page.data.items.map((e) => {
                const link = targetLink(e.target);
                return (
                  <tr key={e.seq} className="border-t border-slate-100 align-top">
                    <td className="px-3 py-2 text-slate-500">{e.seq}</td>
                    <td className="px-3 py-2 whitespace-nowrap">{stamp(e.at)}</td>
                    <td className="px-3 py-2">{e.actor.name}</td>
                    <td className="px-3 py-2">
                      <code>{e.action}</code>
                      {Object.keys(e.details ?? {}).length > 0 && (
                        <details className="text-xs text-slate-600">
                          <summary>details</summary>
                          <pre className="whitespace-pre-wrap">{JSON.stringify(e.details, null, 2)}</pre>
                        </details>
                      )}
                    </td>
                    <td className="px-3 py-2">
                      {link ? (
                        <Link className="text-indigo-700 hover:underline" to={link}>
                          {e.target.type} {e.target.id.slice(0, 8)}
                        </Link>
                      ) : (
                        `${e.target.type} ${e.target.id.slice(0, 8)}`
                      )}
                    </td>
                    <td className="px-3 py-2 font-mono text-xs text-slate-500">{e.hash.slice(0, 12)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
      <div className="mt-3 flex gap-2">
        <Button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </Button>
        <Button
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors([...cursors, page.data.nextCursor])}
        >
          Older
        </Button>
      </div>
      <ReplayForm />
    </section>
  );
}
