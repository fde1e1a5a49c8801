/** JSON in a disclosure widget: collapsed by default when it is long. */
export function JsonView(props: { value: unknown; summary: string; open?: boolean }) {
  const text = JSON.stringify(props.value, null, 2) ?? "null";
  const open = props.open ?? text.split("\n").length <= 12;
  return (
    <details className="json" open={open}>
      <summary>{props.summary}</summary>
      <pre>{text}</pre>
    </details>
  );
}
