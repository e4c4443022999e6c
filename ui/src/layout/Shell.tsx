import { NavLink, Outlet } from "react-router-dom";
import { useSession } from "../auth/session";

const NAV = [
  { to: "/clusters", label: "Clusters" },
  { to: "/approvals", label: "Approvals" },
  { to: "/projects", label: "Projects" },
  { to: "/approval-policies", label: "Approval policies" },
  { to: "/policies", label: "Policies" },
  { to: "/audit", label: "Audit" },
  { to: "/people", label: "People" },
  { to: "/teams", label: "Teams" },
  { to: "/settings", label: "Settings" },
  { to: "/credentials", label: "Credentials" },
];

export function Shell() {
  const { me, signOut } = useSession();
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <span className="font-semibold text-indigo-700">GitOpsHQ</span>
          <nav aria-label="Main" className="flex flex-wrap gap-1">
            {NAV.map((n) => (
              <NavLink
                key={n.to}
                to={n.to}
                className={({ isActive }) =>
                  `rounded px-2 py-1 text-sm ${isActive ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-700 hover:bg-slate-100"}`
                }
              >
                {n.label}
              </NavLink>
            ))}
          </nav>
          <div className="ml-auto flex items-center gap-3 text-sm">
            {me && (
              <span className="text-slate-600">
                {me.name} <span className="text-slate-500">({me.role ?? "service account"})</span>
              </span>
            )}
            <button
              type="button"
              onClick={signOut}
              className="rounded px-2 py-1 text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-7xl px-4 py-6">
        <Outlet />
      </main>
    </div>
  );
}
