import type { Input } from "@skillrun/client";
import type { controlProps } from "../field.js";

/**
 * The control for an input's type: a check box, a number field, a JSON text area for arrays and
 * objects, a file field, and a text field otherwise (a password field for a secret).
 */
export function InputControl(props: {
  input: Input;
  common: ReturnType<typeof controlProps> & { required: boolean };
  value: string | boolean | File | null;
  onChange: (value: string | boolean | File | null) => void;
}) {
  const { input, common, onChange } = props;
  const text = String(props.value ?? "");
  switch (input.data_type) {
    case "boolean":
      return (
        <input
          {...common}
          type="checkbox"
          checked={props.value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
      );
    case "number":
      return (
        <input
          {...common}
          type="number"
          step="any"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case "array":
    case "object":
      return (
        <textarea
          {...common}
          rows={4}
          className="mono"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case "file":
      return (
        <input
          {...common}
          type="file"
          // The picker offers the types the skill accepts; the server checks them either way.
          accept={input.accept?.join(",")}
          onChange={(e) => onChange(e.target.files?.[0] ?? null)}
        />
      );
    default:
      return (
        <input
          {...common}
          type={input.secret ? "password" : "text"}
          autoComplete={input.secret ? "new-password" : "off"}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
}
