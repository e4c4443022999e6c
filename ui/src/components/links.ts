// Links built from text the UI does not control (a pod's log line, an address an agent reports)
// are followed only when they are absolute http(s) URLs: a `javascript:`, `data:`, `vbscript:`,
// `file:` or relative link is never made clickable.

/** The URL when it is an absolute http or https URL, otherwise null. */
export function httpUrl(text: string | null | undefined): string | null {
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

/** Opens an http(s) URL in a new tab that cannot reach back to this page; anything else is ignored. */
export function openExternal(text: string): boolean {
  const url = httpUrl(text);
  if (url === null) return false;
  window.open(url, "_blank", "noopener,noreferrer");
  return true;
}
