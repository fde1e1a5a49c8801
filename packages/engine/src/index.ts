// The engine's public face: what the server (and a future client-side runner) builds on.

export type { BrowserAccess } from "./browser/browser-access.js";
export { DEFAULT_CHROMIUM_USER } from "./browser/chromium-user.js";
export { type ChromiumEnv, ChromiumNotFound, findChromium } from "./browser/find-chromium.js";
export { BrowserMemoryExceeded } from "./browser/memory-watchdog.js";
export {
  browserProcesses,
  isTaggedBrowser,
  killBrowserProcesses,
  listProcesses,
  type ProcessInfo,
} from "./browser/processes.js";
export { createRunBrowser } from "./browser/run-browser.js";
export type { ScreenshotResult } from "./browser/steps/screenshot.js";
export type {
  RecordedVideo,
  RunBrowser,
  RunBrowserOptions,
  RunBrowserResult,
  VideoOptions,
  Viewport,
} from "./browser/types.js";
export { canonicalJson } from "./definition/canonical-json.js";
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
export { loadSkillFile } from "./definition/load.js";
export { parseSkillDefinition } from "./definition/parse.js";
export { skillDefinitionSchema } from "./definition/schema.js";
export type * from "./definition/types.js";
export { messageOf } from "./error-message.js";
export { type AddressRule, forbiddenAddress, type Verdict } from "./network/address-rules.js";
export { guardedDispatcher } from "./network/dispatcher.js";
export { createNetworkGuard, type NetworkGuard, NetworkRefused } from "./network/guard.js";
export { DEFAULT_NETWORK_POLICY, type NetworkPolicy, type Resolver } from "./network/policy.js";
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
export type {
  EngineEvent,
  ExecuteSkillOptions,
  ExecutionResult,
  LogLevel,
  RunInfo,
  StepError,
  StepRef,
} from "./run/types.js";
export type { HttpResult } from "./steps/http-response.js";
export {
  type ActionOf,
  STEP_KINDS,
  type StepKind,
  stepKind,
} from "./steps/registry.js";
export type { StepContext } from "./steps/step-context.js";
export { defineStepKind, type StepKindDefinition } from "./steps/step-kind.js";
