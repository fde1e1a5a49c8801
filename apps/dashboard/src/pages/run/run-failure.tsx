import { Section } from "../../components/section.js";

/**
 * Why the run failed and at which step, with a button that shows that step in the video when
 * the video shows it (`offsetMs`) and the run has a video (`onSeek`).
 */
export function RunFailure(props: {
  failure: { step: string | null; message: string };
  offsetMs: number | null;
  onSeek: ((offsetMs: number, label: string) => void) | undefined;
}) {
  const { failure, offsetMs, onSeek } = props;
  return (
    <Section
      name="failure"
      title={`Failed at ${failure.step ?? "the run"}`}
      className="failure"
      role="alert"
    >
      <p>{failure.message}</p>
      {offsetMs !== null && onSeek && (
        <button
          type="button"
          className="secondary"
          onClick={() => onSeek(offsetMs, failure.step ?? "")}
        >
          Show the failed step in the video
        </button>
      )}
    </Section>
  );
}
