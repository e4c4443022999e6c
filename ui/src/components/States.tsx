import type { ReactNode } from "react";
import { ApiError } from "../api/client";

/** Shown while a query loads. */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" aria-live="polite" className="p-4 text-sm text-slate-500">
      Loading {what}…
    </p>
  );
}

/** Shown when a query fails: a 403 names the permission the hub asked for. */
export function ErrorState({ error }: { error: unknown }) {
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError && error.status === 403) text = `Not allowed: ${error.message}`;
  return (
    <div role="alert" className="m-4 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
      {text}
    </div>
  );
}

/** Shown when a list has nothing in it. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="p-4 text-sm text-slate-500">{children}</p>;
}

/** The field errors of a 400, or the message of any other error, next to a form. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError && error.errors.length > 0) {
    return (
      <ul role="alert" className="mt-2 list-disc pl-5 text-sm text-red-700">
        {error.errors.map((e) => (
          <li key={e.field + e.reason}>
            <code>{e.field}</code>: {e.reason}
          </li>
        ))}
      </ul>
    );
  }
  return (
    <p role="alert" className="mt-2 text-sm text-red-700">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}
