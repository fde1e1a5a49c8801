import { useApi } from "../../api/api-context.js";
import { FILTER_STATES, stateText } from "../../components/run-state.js";
import type { RunsFilters } from "../../live/query-keys.js";

/** The list's filters: a skill of the caller's and a state, each applied as it is chosen. */
export function RunsFilterForm(props: {
  filters: RunsFilters;
  onChange: (name: keyof RunsFilters, value: string) => void;
}) {
  const { $api } = useApi();
  const skills = $api.useQuery("get", "/skill/list");
  return (
    <form className="filters" aria-label="Filter runs" onSubmit={(event) => event.preventDefault()}>
      <div className="field">
        <label htmlFor="filter-skill">Skill</label>
        <select
          id="filter-skill"
          value={props.filters.skill}
          onChange={(event) => props.onChange("skill", event.target.value)}
        >
          <option value="">Any skill</option>
          {skills.data?.map((skill) => (
            <option key={skill.id} value={skill.id}>
              {skill.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-state">State</label>
        <select
          id="filter-state"
          value={props.filters.state}
          onChange={(event) => props.onChange("state", event.target.value)}
        >
          <option value="">Any state</option>
          {/* In the words the list shows the states in. */}
          {FILTER_STATES.map((state) => (
            <option key={state} value={state}>
              {stateText(state)}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}
