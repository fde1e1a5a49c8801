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

/**
 * The states a person can filter the run list by: every state but `editing`, which the API
 * accepts as a filter but no run ever enters.
 */
export const FILTER_STATES = RUN_STATES.filter((state) => state !== "editing");

/** The words for a run's state (null is queued). */
export function stateText(state: string | null | undefined): string {
  return (LABELS[state ?? "queued"] ?? { text: String(state) }).text;
}

/**
 * A run paused at an `ask`: still the `pause` state, in the words of what it waits for, with a
 * mark and a colour of its own, so that it does not read as a pause anyone may resume.
 */
const ASKING = { text: "Waiting for an answer", mark: "?" };

/**
 * A run's state as a word with a mark; the colour only repeats what the word says. `asking`:
 * the run is paused at an `ask` (known from its step log, see `lastPause`).
 */
export function RunState(props: { state: RunSessionState | null | undefined; asking?: boolean }) {
  const key = props.state ?? "queued";
  const asking = key === "pause" && props.asking === true;
  const label = asking ? ASKING : (LABELS[key] ?? { text: key, mark: "?" });
  return (
    <span
      className={`state state-${asking ? "ask" : key}`}
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
