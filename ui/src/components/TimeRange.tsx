import { inputClass } from "./Button";

/** "From" and "To" pickers of a list's filters (local time in, RFC 3339 out via toIso). */
export function TimeRange({
  from,
  to,
  onChange,
}: {
  from: string;
  to: string;
  onChange: (k: "from" | "to", v: string) => void;
}) {
  return (
    <>
      <label className="text-sm">
        From
        <input
          type="datetime-local"
          className={inputClass}
          value={from}
          onChange={(e) => onChange("from", e.target.value)}
        />
      </label>
      <label className="text-sm">
        To
        <input
          type="datetime-local"
          className={inputClass}
          value={to}
          onChange={(e) => onChange("to", e.target.value)}
        />
      </label>
    </>
  );
}

/** A datetime-local value as the API's RFC 3339 time; empty stays empty. */
export function toIso(local: string): string {
  return local && new Date(local).toISOString();
}
