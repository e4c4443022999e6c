const TONES: Record<string, string> = {
  green: "bg-green-100 text-green-800 ring-green-600/30",
  yellow: "bg-yellow-100 text-yellow-900 ring-yellow-600/30",
  red: "bg-red-100 text-red-800 ring-red-600/30",
  gray: "bg-slate-100 text-slate-700 ring-slate-500/30",
  blue: "bg-blue-100 text-blue-800 ring-blue-600/30",
  orange: "bg-orange-100 text-orange-900 ring-orange-600/40",
};

/** The colour each status the hub reports stands for. */
const STATUS_TONE: Record<string, keyof typeof TONES> = {
  Connected: "green",
  Lagging: "yellow",
  Disconnected: "red",
  Pending: "gray",
  Expired: "gray",
  PendingAcceptance: "orange",
  Rejected: "red",
  completed: "green",
  deployed: "green",
  approved: "green",
  executing: "blue",
  deploying: "blue",
  pending: "gray",
  pending_approval: "yellow",
  failed: "red",
  /** Written to the deploy branches, but a cluster did not run it in time. */
  degraded: "orange",
  rejected: "red",
  frozen: "red",
  expired: "gray",
  cancelled: "gray",
  active: "green",
  revoked: "red",
  disabled: "red",
  synced: "green",
};

export function Badge({ children, tone = "gray" }: { children: string; tone?: keyof typeof TONES }) {
  return (
    <span
      className={`inline-flex items-center rounded px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

/** Statuses whose name is not what a person reads. */
const STATUS_LABEL: Record<string, string> = { PendingAcceptance: "Pending acceptance" };

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONE[status] ?? "gray"}>{STATUS_LABEL[status] ?? status.replace("_", " ")}</Badge>;
}

/** The colour of each health the inventory and Argo CD report. */
const HEALTH_TONE: Record<string, keyof typeof TONES> = {
  Healthy: "green",
  Progressing: "blue",
  Degraded: "red",
  Missing: "red",
  Suspended: "yellow",
};

/** A health badge: Healthy, Progressing, Degraded, Missing, Suspended or Unknown. */
export function HealthBadge({ health }: { health: string }) {
  return <Badge tone={HEALTH_TONE[health] ?? "gray"}>{health}</Badge>;
}

/** A sync badge: Synced, OutOfSync or Unknown. */
export function SyncBadge({ status }: { status: string }) {
  return <Badge tone={status === "Synced" ? "green" : status === "OutOfSync" ? "yellow" : "gray"}>{status}</Badge>;
}
