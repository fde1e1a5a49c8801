/**
 * The version of the agent protocol (the `/v1/agent/…` operations and what they carry) this
 * build speaks, sent by agents in the header below. An agent of another version is refused with
 * 426 before anything is done (docs/decisions/0065-agents-pull-client-runs.md).
 */
export const AGENT_PROTOCOL = "1";

export const AGENT_PROTOCOL_HEADER = "Skillrun-Agent-Protocol";

/**
 * How a 409 of an agent's call says the run was cancelled (the agent then records where it
 * stopped) rather than taken from it: the detail's ending, shared by both sides.
 */
export const CANCELLED_DETAIL_ENDING = "it is in state cancel";
