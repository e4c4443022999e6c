import { describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { browserNavigation } from "../api/client";
import { fakeHub, ME } from "../test-utils";
import { SessionProvider, useSession } from "./session";
import { SignIn } from "./SignIn";

function Gate() {
  const { token, me, signOut } = useSession();
  return token ? (
    <>
      <p>signed in as {me?.name}</p>
      <button type="button" onClick={signOut}>
        Sign out
      </button>
    </>
  ) : (
    <SignIn />
  );
}

function renderGate() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SessionProvider>
        <Gate />
      </SessionProvider>
    </QueryClientProvider>,
  );
}

describe("sign-in", () => {
  it("refuses a token the hub does not accept and keeps nothing", async () => {
    fakeHub({
      "GET /me": () => ({ status: 401, json: { status: 401, error: "unauthorized", message: "unauthorized" } }),
    });
    renderGate();
    await userEvent.type(screen.getByLabelText("API token"), "ghqp_wrong");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("The hub does not accept this token.");
    expect(sessionStorage.length).toBe(0);
    expect(localStorage.length).toBe(0);
  });

  it("signs in with a good token, kept in the session only, and hides SSO when it is off", async () => {
    fakeHub({ "GET /me": () => ({ json: ME }) });
    renderGate();
    expect(screen.queryByText("Sign in with SSO")).not.toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("API token"), "ghqp_good");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("signed in as ada@example.com")).toBeInTheDocument();
    expect(sessionStorage.getItem("gitopshq.token")).toBe("ghqp_good");
    expect(localStorage.length).toBe(0);
  });

  const SESSION = "ghqo_" + "a".repeat(64);
  const OTHER = "ghqo_" + "b".repeat(64);
  const SSO_ON = { json: { sso: { enabled: true, loginUrl: "/api/v2/auth/oidc/login" }, apiTokens: true } };

  /** The hub's redirect back from a sign-in, as the browser lands on it. */
  function landFromSso(session: string, state: string) {
    window.history.replaceState(null, "", `/#session_token=${session}&expires_in=28800&client_state=${state}`);
  }

  it("accepts the SSO session only as the answer to a sign-in this tab started, once, and revokes it on sign-out", async () => {
    const calls = fakeHub({
      "GET /auth/config": () => SSO_ON,
      "GET /me": () => ({ json: ME }),
      "POST /auth/logout": () => ({ status: 204 }),
    });
    const go = vi.spyOn(browserNavigation, "go").mockImplementation(() => {});
    renderGate();
    await userEvent.click(await screen.findByRole("link", { name: "Sign in with SSO" }));
    const state = sessionStorage.getItem("gitopshq.sso_state") ?? "";
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The hub gets this tab's state with the sign-in, and hands it back with the session.
    expect(go).toHaveBeenCalledWith(`/api/v2/auth/oidc/login?client_state=${state}`);
    go.mockRestore();
    cleanup();

    landFromSso(SESSION, state);
    renderGate();
    expect(await screen.findByText("signed in as ada@example.com")).toBeInTheDocument();
    expect(sessionStorage.getItem("gitopshq.token")).toBe(SESSION);
    expect(sessionStorage.getItem("gitopshq.sso_state")).toBeNull();
    expect(localStorage.length).toBe(0);
    expect(window.location.hash).toBe("");

    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    const logout = calls.find((c) => c.method === "POST" && c.path === "/auth/logout");
    expect(logout?.headers.Authorization).toBe(`Bearer ${SESSION}`);
    cleanup();

    // The same answer again (the history entry, a copied link): the state is used up.
    landFromSso(OTHER, state);
    renderGate();
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.getItem("gitopshq.token")).toBeNull();
    expect(window.location.hash).toBe("");
  });

  it("ignores a session in the URL that answers no sign-in of this tab, and clears it", async () => {
    fakeHub({ "GET /me": () => ({ json: ME }) });
    // Someone else's session in a link: this tab started no sign-in.
    landFromSso(OTHER, "x".repeat(43));
    renderGate();
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    expect(window.location.hash).toBe("");
    cleanup();

    // Without any state, too.
    window.history.replaceState(null, "", `/#session_token=${OTHER}&expires_in=28800`);
    renderGate();
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    expect(window.location.hash).toBe("");
    cleanup();

    // This tab started a sign-in, but the answer carries another state: refused, and the
    // started sign-in is used up.
    sessionStorage.setItem("gitopshq.sso_state", "s".repeat(43));
    landFromSso(OTHER, "t".repeat(43));
    renderGate();
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    expect(window.location.hash).toBe("");
  });

  it("never swaps the signed-in user for a session in the URL", async () => {
    fakeHub({ "GET /me": () => ({ json: ME }) });
    sessionStorage.setItem("gitopshq.token", "ghqp_good");
    sessionStorage.setItem("gitopshq.sso_state", "s".repeat(43));
    landFromSso(OTHER, "s".repeat(43));
    renderGate();
    expect(await screen.findByText("signed in as ada@example.com")).toBeInTheDocument();
    expect(sessionStorage.getItem("gitopshq.token")).toBe("ghqp_good");
    expect(window.location.hash).toBe("");
  });

  it("ignores a fragment that is not a session token", async () => {
    sessionStorage.setItem("gitopshq.sso_state", "s".repeat(43));
    window.history.replaceState(null, "", `/#session_token=javascript:alert(1)&client_state=${"s".repeat(43)}`);
    fakeHub({ "GET /me": () => ({ json: ME }) });
    renderGate();
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    expect(window.location.hash).toBe("");
  });
});
