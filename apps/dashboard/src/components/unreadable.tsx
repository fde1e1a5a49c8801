import { Link } from "../router.js";
import { ErrorNote } from "./error-note.js";

/** A page whose subject could not be read: why, and the way back to its list. */
export function Unreadable(props: {
  title: string;
  error: unknown;
  prefix: string;
  back: { to: string; text: string };
}) {
  return (
    <section>
      <h1>{props.title}</h1>
      <ErrorNote error={props.error} prefix={props.prefix} />
      <p>
        <Link to={props.back.to}>{props.back.text}</Link>
      </p>
    </section>
  );
}
