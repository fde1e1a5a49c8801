import type { RunSessionState } from "@skillrun/client";

const LABELS: Record<string, { text: string; mark: string }> = {
  queued: { text: "Queued", mark: "○" },
  play: { text: "Running", mark: "▶" },
  pause: { text: "Paused", mark: "❚❚" },
  finish: { text: "Finished", mark: "✓" },
  reset: { text: "Failed", mark: "✕" },
  cancel: { text: "Cancelled", mark: "⊘" },
  timeout: { text: "Timed out", mark: "⧗" },
  editing: { text: "Editing", mark: "✎" },
};

/** The words for a run's state (null is queued). */
export function stateText(state: RunSessionState | null | undefined): string {
  return (LABELS[state ?? "queued"] ?? { text: String(state) }).text;
}

/** A run's state as a word with a mark; the colour only repeats what the word says. */
export function RunState(props: { state: RunSessionState | null | undefined }) {
  const key = props.state ?? "queued";
  const label = LABELS[key] ?? { text: key, mark: "?" };
  return (
    <span className={`state state-${key}`} data-state={key}>
      <span aria-hidden="true" className="state-mark">
        {label.mark}
      </span>
      {label.text}
    </span>
  );
}
