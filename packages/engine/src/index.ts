export {
  CHROMIUM_COMMANDS,
  CHROMIUM_LOCATIONS,
  type ChromiumEnv,
  ChromiumNotFound,
  findChromium,
} from "./browser/find-chromium.js";
export { createRunBrowser, DEFAULT_VIDEO_FPS, DEFAULT_VIEWPORT } from "./browser/run-browser.js";
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
  DURATION_PATTERN,
  parseDuration,
} from "./definition/duration.js";
export {
  formatIssue,
  SkillDefinitionError,
  type SkillDefinitionIssue,
} from "./definition/errors.js";
export { loadSkillFile } from "./definition/load.js";
export { parseSkillDefinition } from "./definition/parse.js";
export {
  DATA_TYPES,
  IDENTIFIER_PATTERN,
  SKILL_DEFINITION_SCHEMA_ID,
  SKILL_ID_PATTERN,
  skillDefinitionSchema,
} from "./definition/schema.js";
export {
  BROWSER_STEP_KINDS,
  PLAIN_STEP_KINDS,
  STEP_KINDS,
  STEP_OPTION_KEYS,
  stepKind,
} from "./definition/step-kinds.js";
export type * from "./definition/types.js";
export { executeSkill } from "./run/execute-skill.js";
export { stepLabel, stepRef } from "./run/step-ref.js";
export type { HttpResult } from "./run/steps/http-response.js";
export type {
  ActionOf,
  BrowserStepKind,
  BrowserStepRunners,
  PlainStepKind,
  StepContext,
  StepRunner,
} from "./run/steps/step-runner.js";
export type {
  EngineEvent,
  ExecuteSkillOptions,
  ExecutionResult,
  RunInfo,
  StepError,
  StepRef,
} from "./run/types.js";
