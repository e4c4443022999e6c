// The one typed client for the hub's REST API (/api/v2). The token lives in sessionStorage only:
// it is gone when the tab closes and never reaches localStorage.

const TOKEN_KEY = "gitopshq.token";

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

const SSO_STATE_KEY = "gitopshq.sso_state";

/** Leaves the app for another page (the hub's sign-in); an object so tests can watch it. */
export const browserNavigation = {
  go(url: string): void {
    window.location.assign(url);
  },
};

/**
 * Starts an SSO sign-in from this tab: a fresh random state, kept in this tab's sessionStorage,
 * goes to the hub with the sign-in and comes back with the session. Returns the URL to open.
 */
export function startSsoSignIn(loginUrl: string): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  const state = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  sessionStorage.setItem(SSO_STATE_KEY, state);
  return `${loginUrl}${loginUrl.includes("?") ? "&" : "?"}client_state=${state}`;
}

/**
 * After an SSO sign-in the hub redirects to `/#session_token=ghqo_…&expires_in=…&client_state=…`.
 * The session is kept only when it answers a sign-in this tab started (its state matches the one
 * `startSsoSignIn` kept, which is then used up) and no one is signed in in this tab: a link with
 * someone else's session in it can neither sign a visitor in nor swap the signed-in user. The
 * fragment is always removed from the address bar and the history entry, so it is neither
 * bookmarked nor shown.
 */
export function takeSsoSession(): void {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  if (!params.has("session_token") && !params.has("client_state")) return;
  const token = params.get("session_token") ?? "";
  const state = params.get("client_state") ?? "";
  const expected = sessionStorage.getItem(SSO_STATE_KEY);
  sessionStorage.removeItem(SSO_STATE_KEY);
  history.replaceState(history.state, "", window.location.pathname + window.location.search);
  if (expected === null || state !== expected) return;
  if (getToken() !== null) return;
  if (/^ghqo_[0-9a-f]{64}$/.test(token)) setToken(token);
}

/** Ends an SSO session at the hub (API tokens are not sessions and stay valid). */
export async function endSsoSession(token: string): Promise<void> {
  if (!token.startsWith("ghqo_")) return;
  try {
    await fetch("/api/v2/auth/logout", { method: "POST", headers: { Authorization: `Bearer ${token}` } });
  } catch {
    // Offline: the session still expires on its own.
  }
}

/** One offending field of a 400, as the hub's error shape names it. */
export interface FieldError {
  field: string;
  reason: string;
}

/** OPA's own error for a policy that does not compile. */
export interface OpaError {
  code: string;
  message: string;
  location?: { file?: string; row: number; col: number };
}

/** Every non-2xx answer: the hub's documented error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly errors: FieldError[] = [],
    readonly opaErrors: OpaError[] = [],
  ) {
    super(message);
  }
}

/** Listeners told when the hub answers 401, so the app can go back to sign-in. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`/api/v2${path}`, {
    method: options.method ?? (body ? "POST" : "GET"),
    headers,
    body,
    signal: options.signal,
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const json = text ? safeJson(text) : undefined;
  if (!res.ok) {
    if (res.status === 401) unauthorizedListeners.forEach((l) => l());
    const e = (json ?? {}) as Partial<{
      error: string;
      message: string;
      errors: FieldError[];
      opaErrors: OpaError[];
    }>;
    throw new ApiError(
      res.status,
      e.error ?? "error",
      e.message ?? `${res.status} ${res.statusText}`,
      e.errors ?? [],
      e.opaErrors ?? [],
    );
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
