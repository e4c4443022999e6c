import type { ReactNode } from "react";
import { render } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { vi } from "vitest";
import { SessionProvider } from "./auth/session";

/** A fetch double that answers by "METHOD /path" and records every request. */
export function fakeHub(routes: Record<string, (body: unknown) => { status?: number; json?: unknown }>) {
  const calls: { method: string; path: string; query: string; body: unknown; headers: Record<string, string> }[] = [];
  const fetchMock = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const path = url.replace(/^\/api\/v2/, "").split("?")[0];
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    const query = url.split("?")[1] ?? "";
    calls.push({ method, path, query, body, headers: (init.headers ?? {}) as Record<string, string> });
    const handler = routes[`${method} ${path}`];
    const answer = handler
      ? handler(body)
      : { status: 404, json: { status: 404, error: "not_found", message: "no route" } };
    const status = answer.status ?? 200;
    return new Response(answer.json === undefined ? null : JSON.stringify(answer.json), { status });
  });
  vi.stubGlobal("fetch", fetchMock);
  return calls;
}

export function renderAt(path: string, route: string, element: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <SessionProvider>
        <MemoryRouter initialEntries={[path]}>
          <Routes>
            <Route path={route} element={element} />
          </Routes>
        </MemoryRouter>
      </SessionProvider>
    </QueryClientProvider>,
  );
}

export const ME = {
  id: "m-1",
  type: "member",
  name: "ada@example.com",
  role: "admin",
  permissions: ["clusters:read", "clusters:write", "approvals:read", "commands:create"],
};
