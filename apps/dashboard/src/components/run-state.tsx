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

/** Every state a run can be in, queued first, in the order a person reads them. */
export const RUN_STATES = Object.keys(LABELS);

/** The words for a run's state (null is queued). */
export function stateText(state: string | null | undefined): string {
  return (LABELS[state ?? "queued"] ?? { text: String(state) }).text;
}

/** A run paused at an `ask`: still the `pause` state, in the words of what it waits for. */
const ASKING = { text: "Waiting for an answer", mark: "❚❚" };

/**
 * A run's state as a word with a mark; the colour only repeats what the word says. `asking`:
 * the run is paused at an `ask` (its page knows from the step log; a list of runs does not).
 */
export function RunState(props: { state: RunSessionState | null | undefined; asking?: boolean }) {
  const key = props.state ?? "queued";
  const asking = key === "pause" && props.asking === true;
  const label = asking ? ASKING : (LABELS[key] ?? { text: key, mark: "?" });
  return (
    <span
      className={`state state-${key}`}
      data-state={key}
      data-reason={asking ? "ask" : undefined}
    >
      <span aria-hidden="true" className="state-mark">
        {label.mark}
      </span>
      {label.text}
    </span>
  );
}
