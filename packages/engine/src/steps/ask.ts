import type { SchemaObject } from "ajv/dist/2020.js";
import { answerSchemaProblem } from "../definition/answer-schema.js";
import { parseDuration } from "../definition/duration.js";
import { ref, saveTarget, text } from "../definition/schema-parts.js";
import { defineStepKind } from "./step-kind.js";

export interface AskAction {
  prompt: string;
  schema?: SchemaObject;
  save_as?: string;
  timeout?: string;
}

/** The longest prompt, as written and as rendered (a longer rendering is cut, see Execution.pause). */
export const MAX_PROMPT_LENGTH = 2000;

/** How long an ask waits for its answer when it does not say. */
export const DEFAULT_ASK_TIMEOUT = "1h";

/**
 * `ask`: pauses the run until a client answers (`POST /v1/run/{id}/resume`), for what only a
 * person has: a one-time code, an approval. The answer, checked against `schema` by the server,
 * is the step's result and goes where `save_as` says. Waiting counts against neither the run's
 * time limit nor any step's: past its own `timeout` the run ends in `timeout`.
 */
export const askStep = defineStepKind<AskAction>({
  schema: {
    type: "object",
    required: ["prompt"],
    properties: {
      prompt: {
        ...text,
        maxLength: MAX_PROMPT_LENGTH,
        description: "What the person is asked; templates are rendered.",
      },
      schema: ref("answer_schema"),
      save_as: saveTarget,
      timeout: {
        ...ref("duration"),
        description: `How long the run waits for the answer before it ends in timeout; ${DEFAULT_ASK_TIMEOUT} when absent.`,
      },
    },
    additionalProperties: false,
    description: "Pauses the run until a client answers: { prompt, schema?, save_as?, timeout? }.",
  },
  problems(action) {
    const problem = action.schema === undefined ? null : answerSchemaProblem(action.schema);
    return problem === null ? [] : [{ path: ["schema"], message: problem }];
  },
  // Asking changes nothing outside the run.
  effects: () => false,
  async run(action, context) {
    const prompt = await context.render(action.prompt);
    context.detail(prompt);
    const answer = await context.ask({
      prompt,
      schema: action.schema ?? {},
      timeoutMs: parseDuration(action.timeout ?? DEFAULT_ASK_TIMEOUT),
    });
    context.detail(`answered ${context.preview(answer)}: ${prompt}`);
    if (action.save_as !== undefined) context.saveAs(action.save_as, answer);
    return answer;
  },
});
