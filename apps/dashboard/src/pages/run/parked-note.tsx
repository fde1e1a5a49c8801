import type { RunSessionState } from "@skillrun/client";
import { formatInstant } from "../../components/time.js";
import type { Parked } from "./parked.js";

/**
 * What a parked run waits for, in a line under its state: it holds no worker, browser or slot
 * until an answer, a resume or the end of its wait, and then until a worker takes it again.
 */
export function ParkedNote(props: {
  parked: Parked;
  state: RunSessionState | null | undefined;
  now: number;
}) {
  return <span className="state-note">{words(props)}</span>;
}

function words(props: { parked: Parked; state: RunSessionState | null | undefined; now: number }) {
  const { parked, state, now } = props;
  const goesOn = "it goes on when a worker takes it";
  if (parked.waiting === "wait") {
    if (parked.wakeAt === null) return "Parked until its wait ends";
    if (Date.parse(parked.wakeAt) <= now) return `Parked: its wait has ended; ${goesOn}`;
    return (
      <>
        Parked until <time dateTime={parked.wakeAt}>{formatInstant(parked.wakeAt)}</time>
      </>
    );
  }
  const asked = parked.waiting === "ask";
  // Still paused: nothing goes on until a person does something.
  if (state === "pause") {
    return `Parked: holds no worker until ${asked ? "answered" : "resumed"}`;
  }
  // Answered or resumed: back in play, until a worker takes it up from where it stopped.
  return `Parked: ${asked ? "answered" : "resumed"}; ${goesOn}`;
}
