import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
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

  it("takes the session from the SSO redirect's fragment, clears the fragment, and revokes it on sign-out", async () => {
    const session = "ghqo_" + "a".repeat(64);
    window.history.replaceState(null, "", `/#session_token=${session}&expires_in=28800`);
    const calls = fakeHub({ "GET /me": () => ({ json: ME }), "POST /auth/logout": () => ({ status: 204 }) });
    renderGate();
    expect(await screen.findByText("signed in as ada@example.com")).toBeInTheDocument();
    expect(sessionStorage.getItem("gitopshq.token")).toBe(session);
    expect(localStorage.length).toBe(0);
    expect(window.location.hash).toBe("");

    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    const logout = calls.find((c) => c.method === "POST" && c.path === "/auth/logout");
    expect(logout?.headers.Authorization).toBe(`Bearer ${session}`);
  });

  it("ignores a fragment that is not a session token", async () => {
    window.history.replaceState(null, "", "/#session_token=javascript:alert(1)");
    fakeHub({ "GET /me": () => ({ json: ME }) });
    renderGate();
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.length).toBe(0);
    expect(window.location.hash).toBe("");
  });
});
