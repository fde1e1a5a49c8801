import { CallFailed } from "../../api/errors.js";

/** Problems found before anything is sent, as a 422 would name them, shown the same way. */
export function localFailure(issues: Record<string, string>): CallFailed {
  return new CallFailed(
    0,
    "Some fields need attention.",
    Object.entries(issues).map(([key, msg]) => ({
      loc: ["body", "inputs", key],
      msg,
      type: "local",
    })),
  );
}

/**
 * A refusal's issues by input key (`loc` `["body", "inputs", key]`); any other issue under
 * the key "", joined, to be shown above the button.
 */
export function issuesByField(error: unknown): Record<string, string> {
  const byField: Record<string, string> = {};
  if (!(error instanceof CallFailed)) return byField;
  for (const issue of error.issues) {
    const [where, group, key] = issue.loc;
    if (where === "body" && group === "inputs" && typeof key === "string") byField[key] = issue.msg;
    else byField[""] = [byField[""], issue.msg].filter(Boolean).join("; ");
  }
  return byField;
}
