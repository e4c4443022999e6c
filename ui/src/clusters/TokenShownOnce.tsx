import { useEffect, useState } from "react";
import type { Registration } from "../api/types";
import { Button } from "../components/Button";

/** A registration token, shown once, with its expiry countdown and the install command. */
export function TokenShownOnce({ registration }: { registration: Registration }) {
  const [now, setNow] = useState(() => Date.now());
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const left = Math.max(0, Math.floor((new Date(registration.expiresAt).getTime() - now) / 1000));
  const mm = String(Math.floor(left / 60)).padStart(2, "0");
  const ss = String(left % 60).padStart(2, "0");
  async function copy() {
    await navigator.clipboard?.writeText(registration.installCommand);
    setCopied(true);
  }
  return (
    <div className="space-y-3">
      <p className="text-sm">
        This registration token is shown only now. It works once and expires in{" "}
        <strong aria-label="time left">{left > 0 ? `${mm}:${ss}` : "— expired"}</strong>.
      </p>
      <label className="block text-sm font-medium">
        Registration token
        <input
          readOnly
          className="mt-1 block w-full rounded border border-slate-300 bg-slate-50 px-2 py-1 font-mono text-xs"
          value={registration.registrationToken}
        />
      </label>
      <div>
        <div className="flex items-center justify-between">
          <span className="text-sm font-medium">Install command</span>
          <Button onClick={copy}>{copied ? "Copied" : "Copy install command"}</Button>
        </div>
        <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-2 text-xs text-slate-100">
          {registration.installCommand}
        </pre>
      </div>
    </div>
  );
}
