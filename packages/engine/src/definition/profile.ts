import { hasTemplate } from "../expressions/template.js";
import { isRecord } from "./describe.js";
import { inputTemplateProblems, renderInputTemplate, templateLiterals } from "./input-template.js";
import type { DefinitionProblem } from "./problem.js";

/** When a run writes its browser's state back to its profile (see SkillDefinition.profile). */
export const PROFILE_SAVE_CHOICES = ["never", "on_success", "always"] as const;
export type ProfileSave = (typeof PROFILE_SAVE_CHOICES)[number];

/** The longest a profile's name may be, in characters (the contract's identifier length). */
export const MAX_PROFILE_NAME_LENGTH = 128;

/**
 * A profile's name: letters, digits and `. _ @ + -`, a letter or digit first, at most 128; never
 * `list`, the list's address. Safe in a URL path, a log line and a file name as it is, and wide
 * enough for an account's e-mail address.
 */
export const PROFILE_NAME_PATTERN = /^(?!list$)[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

/** The characters a profile's name may hold (PROFILE_NAME_PATTERN's set). */
const NAME_CHARACTER = /^[A-Za-z0-9._@+-]$/;

/** What the text of a profile name may be, for messages. */
export const PROFILE_NAME_RULE =
  "letters, digits and . _ @ + -, a letter or digit first, at most 128 characters, not list";

/** Whether `name` is a profile's name as the API and the queue take one. */
export function isProfileName(name: string): boolean {
  return PROFILE_NAME_PATTERN.test(name);
}

/**
 * What is wrong with a definition's `profile.name` beyond its schema: each `{{ }}` must be a
 * path into a declared input that is not secret (the name is stored in clear, and rendered by the
 * API server when a run is queued), and the text around them must be of the name's characters.
 */
export function profileProblems(definition: Record<string, unknown>): DefinitionProblem[] {
  const profile = definition.profile;
  if (!isRecord(profile) || typeof profile.name !== "string") return [];
  const template = profile.name;
  const path = ["profile", "name"];
  const literals = templateLiterals(template);
  const odd = [...literals].find((char) => !NAME_CHARACTER.test(char));
  if (odd !== undefined) {
    const message = `profile name "${template}" holds ${JSON.stringify(odd)}: a profile's name is ${PROFILE_NAME_RULE}`;
    return [{ path, at: "value", message }];
  }
  if (literals.length > MAX_PROFILE_NAME_LENGTH) {
    const message = `profile name is ${literals.length} characters before its inputs; at most ${MAX_PROFILE_NAME_LENGTH}`;
    return [{ path, at: "value", message }];
  }
  if (!hasTemplate(template) && !isProfileName(template)) {
    return [
      { path, at: "value", message: `profile name "${template}" is not ${PROFILE_NAME_RULE}` },
    ];
  }
  return inputTemplateProblems(definition, template, path, {
    field: "profile name",
    stored: "a profile's name",
  });
}

/**
 * A profile's name rendered against a run's inputs, as the API server does when the run is
 * queued; the caller checks the result with isProfileName (an input may hold any text).
 */
export function renderProfileName(template: string, inputs: Record<string, unknown>): string {
  return renderInputTemplate(template, inputs);
}
