/**
 * Why a run in `pause` waits, as its worker stored it (`runs.paused_for`): an `ask` step's
 * question, or a pause a client asked for. The API checks a resume against it.
 */
export type PausedFor =
  | {
      reason: "ask";
      /** The ask step's label. */
      step: string;
      prompt: string;
      /** The JSON Schema the answer must fit ({} takes any answer, or none). */
      schema: Record<string, unknown>;
      /** When the run ends in `timeout` unless answered (RFC 3339). */
      expires_at: string;
    }
  | { reason: "requested"; step: string; expires_at: string };

/** What a resume stores for the worker (`runs.resume_input`): the answer, when one was given. */
export interface ResumeInput {
  answer?: unknown;
}
