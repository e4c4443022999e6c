/** "3 min ago", "in 2 h": a time relative to now, for lists. */
export function relative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "never";
  const diff = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(diff);
  const [n, unit] =
    abs < 60
      ? [abs, "s"]
      : abs < 3600
        ? [Math.floor(abs / 60), "min"]
        : abs < 86400
          ? [Math.floor(abs / 3600), "h"]
          : [Math.floor(abs / 86400), "d"];
  return diff < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** A local date and time for details. */
export function stamp(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}
