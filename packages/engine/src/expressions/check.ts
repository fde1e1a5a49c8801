import { messageOf } from "../error-message.js";
import { compileExpression } from "./compile.js";
import { conditionExpression } from "./evaluate.js";
import { ExpressionError } from "./expression-error.js";
import { functionNameProblems } from "./function-names.js";
import { hasTemplate, parseTemplate } from "./template.js";

/** Why a string's templates cannot be used (unclosed, empty, bad syntax), or undefined if they can. */
export function templateProblem(text: string): string | undefined {
  if (!hasTemplate(text)) return undefined;
  return problemOf(() => {
    for (const part of parseTemplate(text)) {
      if ("expression" in part) compiles(part.expression, part.source);
    }
  });
}

/** Why a step's `if` cannot be used, or undefined if it can. */
export function conditionProblem(condition: string, key = "if"): string | undefined {
  return problemOf(() => {
    const { expression, source } = conditionExpression(condition, key);
    compiles(expression, source);
  });
}

/** Fails unless the expression parses and every function it calls by name exists. */
function compiles(expression: string, source: string): void {
  try {
    compileExpression(expression);
  } catch (error) {
    throw new ExpressionError(`invalid expression ${source}: ${messageOf(error)}`);
  }
  const [problem] = functionNameProblems(expression);
  if (problem !== undefined) throw new ExpressionError(`invalid expression ${source}: ${problem}`);
}

function problemOf(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
}
