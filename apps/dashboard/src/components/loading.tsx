/** What a page waits for while it is read, announced to screen readers. */
export function Loading(props: { what: string }) {
  return <p role="status">Loading {props.what}…</p>;
}
