import type { Input, Skill } from "@skillrun/client";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useApi } from "../api/api-context.js";
import { CallFailed, dataOf, failureOf, messageOf } from "../api/errors.js";
import { navigate } from "../router.js";

type Draft = Record<string, string | boolean | File | null>;

function initialDraft(inputs: Input[], given: Record<string, unknown> | undefined): Draft {
  const draft: Draft = {};
  for (const input of inputs) {
    const value = given?.[input.json_key] ?? input.default;
    if (input.data_type === "file") draft[input.json_key] = null;
    else if (input.data_type === "boolean")
      draft[input.json_key] = value === true || value === "true";
    else if (input.secret && value === "***") draft[input.json_key] = "";
    else if (value === undefined || value === null) draft[input.json_key] = "";
    else if (typeof value === "object") draft[input.json_key] = JSON.stringify(value, null, 2);
    else draft[input.json_key] = String(value);
  }
  return draft;
}

/**
 * A form generated from a skill's declared inputs that starts a run: text, number, check box,
 * JSON for arrays and objects, password fields for secret inputs, and file fields whose file is
 * uploaded with `POST /v1/file` first. The server's 422s are shown at their field.
 */
export function RunForm(props: { skill: Skill; initial?: Record<string, unknown> }) {
  const { client } = useApi();
  const formId = useId();
  const { inputs } = props.skill;
  const [draft, setDraft] = useState<Draft>(() => initialDraft(inputs, props.initial));
  const [issues, setIssues] = useState<Record<string, string>>({});

  const start = useMutation({
    mutationFn: async () => {
      const values: Record<string, unknown> = {};
      const local: Record<string, string> = {};
      for (const input of inputs) {
        const raw = draft[input.json_key];
        if (input.data_type === "file") {
          if (raw instanceof File) {
            const body = new FormData();
            body.append("file", raw);
            const uploaded = await client.POST("/file", {
              // The browser writes the multipart body and its boundary itself.
              body: body as unknown as { file: string },
              bodySerializer: (formData) => formData as unknown as FormData,
            });
            if (!uploaded.response.ok) {
              const failure = failureOf(uploaded.response, uploaded.error);
              local[input.json_key] = `The upload failed: ${failure.message}`;
              continue;
            }
            values[input.json_key] = uploaded.data?.id;
          }
          continue;
        }
        if (input.data_type === "boolean") {
          values[input.json_key] = raw === true;
          continue;
        }
        const text = typeof raw === "string" ? raw : "";
        if (text === "" && input.required === false) continue;
        if (text === "") {
          values[input.json_key] = text;
          continue;
        }
        if (input.data_type === "number") values[input.json_key] = Number(text);
        else if (input.data_type === "array" || input.data_type === "object") {
          try {
            values[input.json_key] = JSON.parse(text);
          } catch {
            local[input.json_key] = "Not valid JSON.";
          }
        } else values[input.json_key] = text;
      }
      if (Object.keys(local).length > 0) {
        throw new CallFailed(
          0,
          "Some fields need attention.",
          Object.entries(local).map(([key, msg]) => ({
            loc: ["body", "inputs", key],
            msg,
            type: "local",
          })),
        );
      }
      return dataOf(
        await client.POST("/run/", { body: { skill_id: props.skill.id, inputs: values } }),
      );
    },
    onMutate: () => setIssues({}),
    onError: (error) => {
      const byField: Record<string, string> = {};
      if (error instanceof CallFailed) {
        for (const issue of error.issues) {
          const [where, group, key] = issue.loc;
          if (where === "body" && group === "inputs" && typeof key === "string")
            byField[key] = issue.msg;
          else byField[""] = [byField[""], issue.msg].filter(Boolean).join("; ");
        }
      }
      setIssues(byField);
    },
    onSuccess: (run) => navigate(`/runs/${encodeURIComponent(run.id)}`),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    start.mutate();
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
      {general && (
        <p id={`${formId}-error`} className="error" role="alert">
          {general}
        </p>
      )}
      {fieldIssues && !general && (
        <p className="error" role="alert">
          The run was not started: see the fields marked above.
        </p>
      )}
      <button type="submit" disabled={start.isPending}>
        {start.isPending ? "Starting…" : "Run"}
      </button>
    </form>
  );
}

function InputField(props: {
  input: Input;
  value: string | boolean | File | null;
  issue: string | undefined;
  onChange: (value: string | boolean | File | null) => void;
}) {
  const { input, value, issue } = props;
  const id = useId();
  const described = [input.description ? `${id}-help` : "", issue ? `${id}-error` : ""].filter(
    Boolean,
  );
  const common = {
    id,
    name: input.json_key,
    "aria-invalid": issue ? true : undefined,
    "aria-describedby": described.length > 0 ? described.join(" ") : undefined,
    required: input.required !== false,
  };
  let control: React.ReactNode;
  switch (input.data_type) {
    case "boolean":
      control = (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(e) => props.onChange(e.target.checked)}
        />
      );
      break;
    case "number":
      control = (
        <input
          {...common}
          type="number"
          step="any"
          value={String(value ?? "")}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
      break;
    case "array":
    case "object":
      control = (
        <textarea
          {...common}
          rows={4}
          className="mono"
          value={String(value ?? "")}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
      break;
    case "file":
      control = (
        <input
          {...common}
          type="file"
          onChange={(e) => props.onChange(e.target.files?.[0] ?? null)}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type={input.secret ? "password" : "text"}
          autoComplete={input.secret ? "new-password" : "off"}
          value={String(value ?? "")}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
  }
  return (
    <div className={input.data_type === "boolean" ? "field field-check" : "field"}>
      <label htmlFor={id}>
        {input.json_key}
        <span className="muted">
          {" "}
          ({input.data_type}
          {input.secret ? ", secret" : ""}
          {input.required === false ? ", optional" : ""})
        </span>
      </label>
      {control}
      {input.description && (
        <p id={`${id}-help`} className="help">
          {input.description}
        </p>
      )}
      {issue && (
        <p id={`${id}-error`} className="error">
          {issue}
        </p>
      )}
    </div>
  );
}
