/** Newer and older pages of the list, each button disabled where there is no such page. */
export function RunsPager(props: {
  hasNewer: boolean;
  next: string | undefined;
  onNewer: () => void;
  onOlder: (next: string) => void;
}) {
  const { next } = props;
  if (!props.hasNewer && !next) return null;
  return (
    <nav className="pager" aria-label="Pages of runs">
      <button
        type="button"
        className="secondary"
        disabled={!props.hasNewer}
        onClick={props.onNewer}
      >
        Newer runs
      </button>
      <button
        type="button"
        className="secondary"
        disabled={!next}
        onClick={() => next && props.onOlder(next)}
      >
        Older runs
      </button>
    </nav>
  );
}
