import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useApi } from "../api/api-context.js";
import { CallFailed, dataOf, messageOf } from "../api/errors.js";
import { ErrorNote } from "./error-note.js";
import { answerOf } from "./schema-form/answer-of.js";
import type { Draft, Schema } from "./schema-form/schema.js";
import { SchemaFields } from "./schema-form/schema-fields.js";
import { Section } from "./section.js";

/** The question of a run paused at an `ask`, with a form generated from its answer's schema. */
export function AskForm(props: { runId: string; prompt: string; schema: Schema | undefined }) {
  const { client } = useApi();
  const [draft, setDraft] = useState<Draft>({});
  const [issues, setIssues] = useState<Record<string, string>>({});
  const answer = useMutation({
    mutationFn: async (input: unknown) =>
      dataOf(
        await client.POST("/run/{id}/resume", {
          params: { path: { id: props.runId } },
          body: input === undefined ? {} : { input },
        }),
      ),
    onError: (error) => {
      const byField: Record<string, string> = {};
      if (error instanceof CallFailed) {
        for (const issue of error.issues) byField[issue.loc.slice(1).join(".")] = issue.msg;
      }
      setIssues(byField);
    },
    onSuccess: () => setIssues({}),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    let input: unknown;
    try {
      input = props.schema ? answerOf(props.schema, draft) : null;
    } catch (error) {
      setIssues({ input: messageOf(error) });
      return;
    }
    answer.mutate(input);
  }

  return (
    <Section name="ask" title="The run asks" className="ask">
      <p className="prompt">{props.prompt}</p>
      <form onSubmit={submit} noValidate>
        {props.schema ? (
          <SchemaFields
            schema={props.schema}
            draft={draft}
            onChange={setDraft}
            issues={issues}
            label="Answer"
          />
        ) : (
          <p className="help">No answer is needed: send to go on.</p>
        )}
        <ErrorNote error={answer.error} prefix="The answer was refused" />
        <button type="submit" disabled={answer.isPending || answer.isSuccess}>
          {answer.isSuccess ? "Answer sent" : "Send answer"}
        </button>
      </form>
    </Section>
  );
}
