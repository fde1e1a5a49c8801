import type { Skill } from "@skillrun/client";
import { type FormEvent, useId, useState } from "react";
import { CallFailed, messageOf } from "../../api/errors.js";
import { type InputDraft, initialDraft } from "./input-draft.js";
import { InputField } from "./input-field.js";
import { useStartRun } from "./use-start-run.js";

/**
 * A form generated from a skill's declared inputs that starts a run: text, number, check box,
 * JSON for arrays and objects, password fields for secret inputs, and file fields whose file is
 * uploaded with `POST /v1/file` first. The server's 422s are shown at their field.
 */
export function RunForm(props: { skill: Skill; initial?: Record<string, unknown> }) {
  const formId = useId();
  const { inputs } = props.skill;
  const [draft, setDraft] = useState<InputDraft>(() => initialDraft(inputs, props.initial));
  const { start, issues } = useStartRun(props.skill);

  function submit(event: FormEvent) {
    event.preventDefault();
    start.mutate(draft);
  }

  const fieldIssues = start.error instanceof CallFailed && start.error.issues.length > 0;
  const general = issues[""] ?? (start.error && !fieldIssues ? messageOf(start.error) : undefined);
  return (
    <form
      className="run-form"
      onSubmit={submit}
      noValidate
      aria-describedby={general ? `${formId}-error` : undefined}
    >
      {inputs.length === 0 && <p className="muted">This skill takes no inputs.</p>}
      {inputs.map((input) => (
        <InputField
          key={input.json_key}
          input={input}
          value={draft[input.json_key] ?? null}
          issue={issues[input.json_key]}
          onChange={(value) => setDraft({ ...draft, [input.json_key]: value })}
        />
      ))}
      {(general || fieldIssues) && (
        <p id={general ? `${formId}-error` : undefined} className="error" role="alert">
          {general || "The run was not started: see the fields marked above."}
        </p>
      )}
      <button type="submit" disabled={start.isPending}>
        {start.isPending ? "Starting…" : "Run"}
      </button>
    </form>
  );
}
