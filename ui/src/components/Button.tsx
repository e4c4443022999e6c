import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "danger";
const STYLES: Record<Variant, string> = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-500 disabled:bg-indigo-300",
  secondary: "bg-white text-slate-900 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 disabled:text-slate-500",
  danger: "bg-red-600 text-white hover:bg-red-500 disabled:bg-red-300",
};

export function Button({
  variant = "secondary",
  className = "",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return (
    <button
      type="button"
      className={`rounded px-3 py-1.5 text-sm font-medium ${STYLES[variant]} ${className}`}
      {...props}
    />
  );
}

export const inputClass = "block w-full rounded border border-slate-300 px-2 py-1.5 text-sm";
