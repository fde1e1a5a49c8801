export type {
  components,
  Environment,
  ErrorDetail,
  HTTPValidationError,
  Input,
  operations,
  paths,
  RunSession,
  RunSessionState,
  RunSkillRequest,
  Skill,
  ValidationError,
  VariableDataType,
} from "./contract-types.js";
export {
  createSkillrunClient,
  type SkillrunClient,
  type SkillrunClientOptions,
} from "./create-client.js";
export { ApiError, WaitTimeoutError } from "./errors.js";
export { type ListAllRunsOptions, listAllRuns } from "./list-all-runs.js";
export { type RerunOptions, rerun } from "./rerun.js";
export { isTerminalState, TERMINAL_STATES } from "./run-states.js";
export { type WaitForRunOptions, waitForRun } from "./wait-for-run.js";
export { type RunEvent, type WatchRunOptions, watchRun } from "./watch-run.js";
