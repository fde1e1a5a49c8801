// The engine's public face: what the server (and a future client-side runner) builds on.

export type { BrowserAccess } from "./browser/browser-access.js";
export type {
  BrowserSnapshot,
  StorageState,
  StoredCookie,
  StoredOrigin,
} from "./browser/browser-snapshot.js";
export { DEFAULT_CHROMIUM_USER } from "./browser/chromium-user.js";
export { type ChromiumEnv, ChromiumNotFound, findChromium } from "./browser/find-chromium.js";
export { BrowserMemoryExceeded } from "./browser/memory-watchdog.js";
export {
  browserProcesses,
  isTaggedBrowser,
  killBrowserProcesses,
  listProcesses,
  type ProcessInfo,
  statFields,
} from "./browser/processes.js";
export {
  type ProfileFolder,
  profileFolderProblem,
  removeProfileCopies,
} from "./browser/profile-folder.js";
export { createRunBrowser } from "./browser/run-browser.js";
export type { ScreenshotResult } from "./browser/steps/screenshot.js";
export type {
  LiveFrame,
  RecordedVideo,
  RunBrowser,
  RunBrowserOptions,
  RunBrowserResult,
  VideoOptions,
  Viewport,
} from "./browser/types.js";
export { isAcceptedType } from "./definition/accepted-types.js";
export { type AnswerIssue, checkAnswer } from "./definition/answer-schema.js";
export { type SkillCall, skillCalls } from "./definition/called-skills.js";
export { canonicalJson } from "./definition/canonical-json.js";
export { checkInputs, type DeclaredInput, type InputIssue } from "./definition/check-inputs.js";
export {
  MAX_CONCURRENCY,
  MAX_CONCURRENCY_KEY_LENGTH,
  renderConcurrencyKey,
} from "./definition/concurrency.js";
export {
  DEFAULT_SKILL_TIMEOUT_MS,
  MAX_DURATION,
  MAX_DURATION_MS,
  parseDuration,
} from "./definition/duration.js";
export {
  formatIssue,
  SkillDefinitionError,
  type SkillDefinitionIssue,
} from "./definition/errors.js";
export { loadSkillFile, loadSkillSource } from "./definition/load.js";
export { parseSkillDefinition, parseSkillSource, type SkillSource } from "./definition/parse.js";
export {
  isProfileName,
  MAX_PROFILE_NAME_LENGTH,
  PROFILE_NAME_PATTERN,
  PROFILE_NAME_RULE,
  PROFILE_SAVE_CHOICES,
  type ProfileSave,
  renderProfileName,
} from "./definition/profile.js";
export { skillDefinitionSchema } from "./definition/schema.js";
export { referencedSecrets } from "./definition/secret-references.js";
export type * from "./definition/types.js";
export { messageOf } from "./error-message.js";
export { isRunFileName, MAX_FILE_NAME, sanitiseFileName } from "./files/file-names.js";
export type { FileResult } from "./files/file-result.js";
export {
  createRunFiles,
  type RunFile,
  RunFileNotFound,
  type RunFiles,
  RunFilesLimitExceeded,
  type RunFilesOptions,
} from "./files/run-files.js";
export { type AddressRule, forbiddenAddress, type Verdict } from "./network/address-rules.js";
export { guardedDispatcher } from "./network/dispatcher.js";
export { createNetworkGuard, type NetworkGuard, NetworkRefused } from "./network/guard.js";
export { DEFAULT_NETWORK_POLICY, type NetworkPolicy, type Resolver } from "./network/policy.js";
export {
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CheckpointLevel,
  checkpointProblem,
  type SkillSnapshot,
  stepAt,
} from "./run/checkpoint.js";
export { executeSkill } from "./run/execute-skill.js";
export { RUN_HOST_ENTRY } from "./run/host/entry.js";
export type {
  FromRunHost,
  RunHostResult,
  RunJob,
  StopKind,
  ToRunHost,
} from "./run/host/protocol.js";
export { DEFAULT_ENGINE_LIMITS, type EngineLimits, formatBytes } from "./run/limits.js";
export { setLongTimeout } from "./run/long-timeout.js";
export { SECRET_MASK, SecretMask } from "./run/secret-mask.js";
export type {
  EngineEvent,
  ExecuteSkillOptions,
  ExecutionResult,
  LogLevel,
  PauseRequest,
  RunInfo,
  StepError,
  StepRef,
} from "./run/types.js";
export { type OverLimitWatch, watchOverLimit } from "./run/watch-over-limit.js";
export type { HttpResult } from "./steps/http-response.js";
export { MAX_CALL_DEPTH, MAX_ITERATIONS } from "./steps/loop-limits.js";
export { readExcerpt } from "./steps/read-body.js";
export {
  type ActionOf,
  STEP_KINDS,
  type StepKind,
  stepKind,
  stepKindDefinition,
} from "./steps/registry.js";
export type { StepContext } from "./steps/step-context.js";
export { defineStepKind, type StepKindDefinition } from "./steps/step-kind.js";
