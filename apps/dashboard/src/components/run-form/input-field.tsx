import type { Input } from "@skillrun/client";
import { useId } from "react";
import { controlProps, Field } from "../field.js";
import { InputControl } from "./input-control.js";

/** One declared input as a labelled field: its key, type and whether it is secret or optional. */
export function InputField(props: {
  input: Input;
  value: string | boolean | File | null;
  issue: string | undefined;
  onChange: (value: string | boolean | File | null) => void;
}) {
  const { input, issue } = props;
  const id = useId();
  const label = (
    <>
      {input.json_key}
      <span className="muted">
        {" "}
        ({input.data_type}
        {input.secret ? ", secret" : ""}
        {input.required === false ? ", optional" : ""})
      </span>
    </>
  );
  return (
    <Field
      id={id}
      label={label}
      check={input.data_type === "boolean"}
      help={input.description}
      issue={issue}
    >
      <InputControl
        input={input}
        common={{
          ...controlProps(id, input.description, issue, input.json_key),
          required: input.required !== false,
        }}
        value={props.value}
        onChange={props.onChange}
      />
    </Field>
  );
}
