import type { ReactNode } from "react";
import { messageOf } from "../api/errors.js";

interface MutationButtonProps {
  /** What the button does: a TanStack mutation of no variables. */
  mutation: { isPending: boolean; error: unknown; mutate: () => void };
  className: string;
  /** The button's name when its text alone does not say which item it acts on. */
  label?: string;
  /** What the button does, shown on hovering it when its text is short. */
  title?: string;
  children: ReactNode;
}

/** A button that runs its mutation, disabled while it is under way so one press is one call. */
export function MutationButton(props: MutationButtonProps) {
  const { mutation } = props;
  return (
    <button
      type="button"
      className={props.className}
      aria-label={props.label}
      title={props.title}
      disabled={mutation.isPending}
      onClick={() => mutation.mutate()}
    >
      {props.children}
    </button>
  );
}

/** A mutation's button in a row or a line, with its refusal shown beside it. */
export function InlineAction(props: MutationButtonProps) {
  const { error } = props.mutation;
  return (
    <span className="inline-action">
      <MutationButton {...props} />
      {error ? (
        <span className="error" role="alert">
          {messageOf(error)}
        </span>
      ) : null}
    </span>
  );
}
