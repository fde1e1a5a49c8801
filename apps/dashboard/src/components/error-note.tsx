import { messageOf } from "../api/errors.js";

/** An error shown where it happened, announced to screen readers. */
export function ErrorNote(props: { error: unknown; prefix?: string }) {
  if (props.error === null || props.error === undefined) return null;
  return (
    <p className="error" role="alert">
      {props.prefix ? `${props.prefix}: ` : ""}
      {messageOf(props.error)}
    </p>
  );
}
