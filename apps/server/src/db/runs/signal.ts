/** What a change to a run tells the workers: a run is waiting, or one was cancelled. */
export type RunSignal = { type: "queued" } | { type: "cancelled"; runId: string };

/** The channel all Skillrun processes on a PostgreSQL database hear run signals on. */
export const RUN_SIGNAL_CHANNEL = "skillrun_runs";

/** A signal as the channel carries it: `queued`, or `cancelled:<run id>`. */
export function payloadOf(signal: RunSignal): string {
  return signal.type === "queued" ? "queued" : `cancelled:${signal.runId}`;
}

/** The signal a payload of the channel carries; undefined when it carries none. */
export function signalOf(payload: string): RunSignal | undefined {
  if (payload === "queued") return { type: "queued" };
  if (payload.startsWith("cancelled:")) {
    return { type: "cancelled", runId: payload.slice("cancelled:".length) };
  }
  return undefined;
}
