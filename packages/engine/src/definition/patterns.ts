// Leaf module: step kinds (call) and the schema both use these, and the schema imports the kinds.

/** A skill id: 1 to 128 letters, digits, `_`, `.` or `-`. */
export const SKILL_ID_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Names that expressions refer to (`inputs.url`, `data.price`): json_key, step id, save_as; at
 * most 128 characters, like a skill id, so that no name costs more than a name's worth of work
 * wherever it is compared (the "did you mean" suggestions compare names pairwise).
 */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Which tab `switch_tab` makes current, when written as text: `last`, or one `{{ }}`. */
export const TAB_CHOICE_PATTERN = /^(last|\s*\{\{[\s\S]*\}\}\s*)$/;
