import type { ReactNode } from "react";

/**
 * The attributes a form control shares with its field: its id and name, `aria-invalid` when the
 * field has an issue, and `aria-describedby` naming the help and the issue shown under it.
 */
export function controlProps(id: string, help: unknown, issue: string | undefined, name?: string) {
  const described = [help ? `${id}-help` : "", issue ? `${id}-error` : ""].filter(Boolean);
  return {
    id,
    name,
    "aria-invalid": issue ? true : undefined,
    "aria-describedby": described.length > 0 ? described.join(" ") : undefined,
  } as const;
}

/** A labelled form field: the control, its help and its issue, each found by the control's id. */
export function Field(props: {
  id: string;
  label: ReactNode;
  /** A check box sits beside its label rather than under it. */
  check: boolean;
  help: string | null | undefined;
  issue: string | undefined;
  children: ReactNode;
}) {
  const { id, help, issue } = props;
  return (
    <div className={props.check ? "field field-check" : "field"}>
      <label htmlFor={id}>{props.label}</label>
      {props.children}
      {help ? (
        <p id={`${id}-help`} className="help">
          {help}
        </p>
      ) : null}
      {issue ? (
        <p id={`${id}-error`} className="error">
          {issue}
        </p>
      ) : null}
    </div>
  );
}
