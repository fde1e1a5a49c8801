import type { RunSession } from "@skillrun/client";
import { JsonView } from "../../components/json-view.js";
import { Section } from "../../components/section.js";

/** What the run saved so far, as collapsible JSON. */
export function RunData(props: { data: RunSession["data"] }) {
  const { data } = props;
  return (
    <Section name="data" title="Data">
      {data && Object.keys(data).length > 0 ? (
        <JsonView value={data} summary="The data the run saved (JSON)" />
      ) : (
        <p className="muted">Nothing saved yet.</p>
      )}
    </Section>
  );
}
