import { NavLink } from "react-router-dom";

/** A page's tabs as links (each tab has its own URL, as the product guide's routes do). */
export function TabNav({ label, base, tabs }: { label: string; base: string; tabs: { id: string; label: string }[] }) {
  return (
    <nav aria-label={label} className="mt-4 flex flex-wrap gap-1 border-b border-slate-200">
      {tabs.map((t) => (
        <NavLink
          key={t.id}
          to={`${base}/${t.id}`}
          className={({ isActive }) =>
            `-mb-px border-b-2 px-3 py-2 text-sm ${isActive ? "border-indigo-600 font-medium text-indigo-700" : "border-transparent text-slate-600 hover:text-slate-900"}`
          }
        >
          {t.label}
        </NavLink>
      ))}
    </nav>
  );
}
