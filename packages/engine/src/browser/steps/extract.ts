import { frame, ref, saveTarget, selector, text } from "../../definition/schema-parts.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { stepScope } from "./element-scope.js";
import { noMatch } from "./failures.js";
import { type ReadSpec, readMatches } from "./read-matches.js";
import { ELEMENT_TIMEOUT_MS } from "./step-page.js";

/** A field of `fields`: a selector relative to the matched element, or one with an attribute. */
export type ExtractField = string | { selector: string; attribute?: string };

export type ExtractAction = {
  selector: string;
  save_as?: string;
  attribute?: string;
  all?: boolean;
  fields?: Record<string, ExtractField>;
  frame?: string;
};

const field = {
  oneOf: [
    selector,
    {
      type: "object",
      required: ["selector"],
      properties: {
        selector,
        attribute: { ...text, description: "Reads this attribute instead of the text." },
      },
      additionalProperties: false,
    },
  ],
};

/**
 * Reads the text (trimmed, as rendered) or an attribute of the first matching element, or with
 * `fields` an object of values read inside it; with `all`, a list with one entry per match, read
 * in one call to the page however many there are. Null for whatever an element lacks.
 */
export const extractStep = defineStepKind<ExtractAction>({
  schema: {
    type: "object",
    required: ["selector"],
    properties: {
      selector,
      save_as: saveTarget,
      attribute: { ...text, description: "Reads this attribute instead of the text." },
      all: {
        type: "boolean",
        default: false,
        description: "A list, one entry per match; no match is an empty list at once.",
      },
      fields: {
        type: "object",
        minProperties: 1,
        propertyNames: ref("identifier"),
        additionalProperties: field,
        description: "Reads an object per match: each field a selector inside the match.",
      },
      frame,
    },
    additionalProperties: false,
    // `properties` restated so ajv's strict mode sees the required keys defined.
    not: { required: ["attribute", "fields"], properties: { attribute: true, fields: true } },
  },
  browser: true,
  async run(action, context) {
    const selector = await context.render(action.selector);
    const spec: ReadSpec = {};
    if (action.attribute !== undefined) spec.attribute = await context.render(action.attribute);
    if (action.fields !== undefined) {
      spec.fields = {};
      for (const [name, value] of Object.entries(action.fields)) {
        const found = typeof value === "string" ? { selector: value } : value;
        spec.fields[name] = {
          selector: await context.render(found.selector),
          ...(found.attribute === undefined
            ? {}
            : { attribute: await context.render(found.attribute) }),
        };
      }
    }
    const { scope, timeout } = await stepScope(context, ELEMENT_TIMEOUT_MS, action.frame);
    const matches = scope.locator(selector);
    context.detail(scope.name(selector));
    const value = await actOn(context, scope, selector, "read", timeout, async () => {
      // One page evaluation reads every match: a call per element would be slow on long lists,
      // and each would add its own listener to the step's signal.
      if (action.all === true) return matches.evaluateAll(readMatches, spec);
      // One element is asked for, so one is waited for: a selector matching nothing is more
      // often a mistake than an answer.
      await matches.first().waitFor({ state: "attached", timeout, signal: context.signal });
      const [first] = await matches.first().evaluateAll(readMatches, spec);
      // It matched a moment ago; gone since, it is as if it never had.
      if (first === undefined) throw noMatch(selector, timeout, scope);
      return first;
    });
    context.detail(`${scope.name(selector)} → ${context.preview(value)}`);
    if (action.save_as !== undefined) context.saveAs(action.save_as, value);
    return value;
  },
});
