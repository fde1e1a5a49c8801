import type { components } from "./contract.js";

export type { components, operations, paths } from "./contract.js";

type Schemas = components["schemas"];

/** One execution of a skill with inputs. */
export type RunSession = Schemas["RunSession"];
/** A run's state; a queued run has none (`null`). */
export type RunSessionState = Schemas["RunSessionState"];
/** A stored automation definition. */
export type Skill = Schemas["Skill"];
/** One input a skill declares. */
export type Input = Schemas["Input"];
/** The type of a skill input. */
export type VariableDataType = Schemas["VariableDataType"];
/** Where a run executes. */
export type Environment = Schemas["Environment"];
/** The body of `POST /run/`. */
export type RunSkillRequest = Schemas["RunSkillRequest"];
/** Every error except validation failures: `{ detail: "<message>" }`. */
export type ErrorDetail = Schemas["ErrorDetail"];
/** One validation fault: `{ loc, msg, type }`. */
export type ValidationError = Schemas["ValidationError"];
/** A 422 body: `{ detail: ValidationError[] }`. */
export type HTTPValidationError = Schemas["HTTPValidationError"];
