import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { useTitle } from "../../router.js";
import { FirstRun } from "./first-run.js";
import { RunsFilterForm } from "./runs-filter-form.js";
import { RunsPager } from "./runs-pager.js";
import { RunsTable } from "./runs-table.js";
import { useCursors } from "./use-cursors.js";
import { useRunsFilters } from "./use-runs-filters.js";
import { useRunsList } from "./use-runs-list.js";

/** The caller's runs, newest first: filters, cursor paging, live from the run stream. */
export function RunsPage() {
  useTitle("Runs");
  const { filters, filtered, setFilter } = useRunsFilters();
  const cursors = useCursors();
  const runs = useRunsList(filters, cursors.cursor);
  const page = runs.data;
  const empty = page !== undefined && page.runs.length === 0;
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <RunsFilterForm
        filters={filters}
        onChange={(name, value) => {
          // Other filters, other pages: back to the first.
          cursors.reset();
          setFilter(name, value);
        }}
      />
      <ErrorNote error={runs.error} prefix="The runs could not be listed" />
      {runs.isPending && <Loading what="runs" />}
      {empty && page.first && !filtered && <FirstRun />}
      {empty && (filtered || !page.first) && <p role="status">No run matches these filters.</p>}
      {page && page.runs.length > 0 && <RunsTable runs={page.runs} filtered={filtered} />}
      <RunsPager
        hasNewer={cursors.hasNewer}
        next={page?.next}
        onNewer={cursors.newer}
        onOlder={cursors.older}
      />
    </section>
  );
}
