import { useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, ApiError, browserNavigation, setToken, startSsoSignIn } from "../api/client";
import type { Me, Schemas, With } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { useSession } from "./session";
import { queryKeys } from "../api/keys";

type AuthConfig = Omit<Schemas["AuthConfig"], "sso"> & { sso?: With<Schemas["Sso"], "enabled"> };

/** Paste an API token (checked against the hub before it is kept), or sign in with SSO. */
export function SignIn() {
  const { signIn } = useSession();
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const config = useQuery({
    queryKey: queryKeys.authConfig(),
    queryFn: () => api<AuthConfig>("/auth/config"),
    retry: false,
  });

  const ssoLogin = config.data?.sso?.enabled ? config.data.sso.loginUrl : undefined;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setToken(value.trim());
    try {
      await api<Me>("/me");
      signIn(value.trim());
    } catch (err) {
      setToken(null);
      setError(err instanceof ApiError && err.status === 401 ? "The hub does not accept this token." : String(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="mx-auto mt-24 max-w-md rounded-lg bg-white p-6 shadow">
      <h1 className="text-xl font-semibold">Sign in to GitOpsHQ</h1>
      <form onSubmit={submit} className="mt-4 space-y-3">
        <label className="block text-sm font-medium" htmlFor="token">
          API token
        </label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          className={inputClass}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder="ghqp_…"
          required
        />
        <p className="text-xs text-slate-500">Kept for this browser tab only, never in local storage.</p>
        {error && (
          <p role="alert" className="text-sm text-red-700">
            {error}
          </p>
        )}
        <Button variant="primary" type="submit" disabled={busy || value.trim() === ""}>
          {busy ? "Checking…" : "Sign in"}
        </Button>
      </form>
      {ssoLogin && (
        <a
          className="mt-4 block text-center text-sm font-medium text-indigo-700 underline"
          href={ssoLogin}
          onClick={(e) => {
            // The sign-in carries this tab's fresh state, so only its answer is accepted here.
            e.preventDefault();
            browserNavigation.go(startSsoSignIn(ssoLogin));
          }}
        >
          Sign in with SSO
        </a>
      )}
    </main>
  );
}
