import { api } from "../api/client";

/**
 * Fetches a JSON document with the caller's token and hands it to the browser as a file. A plain
 * link would not carry the Authorization header.
 */
export async function downloadJson(path: string, filename: string): Promise<unknown> {
  const doc = await api<unknown>(path);
  const blob = new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" });
  if (typeof URL.createObjectURL === "function") {
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    URL.revokeObjectURL(url);
  }
  return doc;
}

/** The file name for a workflow's history: characters a file system may refuse become "_". */
export function historyFilename(workflowId: string): string {
  return `${workflowId.replace(/[^A-Za-z0-9._-]/g, "_")}.history.json`;
}
