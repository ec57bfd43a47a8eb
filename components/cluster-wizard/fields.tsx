"use client";
import type { ReactNode } from "react";

export function Field(props: { label: string; htmlFor: string; errors?: string[]; hint?: ReactNode; children: ReactNode }) {
  return (
    <div>
      <label className="label" htmlFor={props.htmlFor}>
        {props.label}
      </label>
      {props.children}
      {props.hint && !props.errors?.length && <p className="mt-1 text-xs text-slate-500">{props.hint}</p>}
      <FieldErrors id={props.htmlFor} errors={props.errors} />
    </div>
  );
}

export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <ul className="mt-1 space-y-0.5" data-testid={`error-${id}`}>
      {errors.map((e) => (
        <li key={e} className="text-xs text-red-600">
          {e}
        </li>
      ))}
    </ul>
  );
}

export const inputClass = (errors?: string[]) => `input ${errors?.length ? "input-error" : ""}`;

/** A yes/no field: the box and its label on one line, the hint (or errors) below. */
export function CheckField(props: { label: string; id: string; checked: boolean; onChange: (checked: boolean) => void; errors?: string[]; hint?: ReactNode }) {
  return (
    <div>
      <label className="flex items-center gap-2 text-sm font-medium text-slate-700" htmlFor={props.id}>
        <input id={props.id} data-testid={`field-${props.id}`} type="checkbox" checked={props.checked} onChange={(e) => props.onChange(e.target.checked)} />
        {props.label}
      </label>
      {props.hint && !props.errors?.length && <p className="mt-1 text-xs text-slate-500">{props.hint}</p>}
      <FieldErrors id={props.id} errors={props.errors} />
    </div>
  );
}
