import { DataTable } from "../../components/data-table.js";
import { ErrorNote } from "../../components/error-note.js";
import { Fact } from "../../components/fact.js";
import { stateText } from "../../components/run-state.js";
import { Section } from "../../components/section.js";
import { Link, skillPath, useTitle } from "../../router.js";
import { StateBars } from "./state-bars.js";
import { useRunSummary } from "./use-run-summary.js";

const STATES = ["queued", "play", "pause", "finish", "reset", "cancel", "timeout"] as const;

/**
 * The caller's runs at a glance: how many runs of the last 24 hours are in each state (a chart,
 * and the same figures as a table), which skills failed most, and how many runs are queued now.
 * Every place is drawn before the figures arrive, so the page does not move when they do.
 */
export function OverviewPage() {
  useTitle("Overview");
  const summary = useRunSummary();
  const figures = summary.data;
  const loading = figures === undefined;
  return (
    <section aria-labelledby="overview-title" aria-busy={loading}>
      <h1 id="overview-title">Overview</h1>
      <p className="muted">Your runs started in the last 24 hours, by their state now.</p>
      <ErrorNote error={summary.error} prefix="The figures could not be read" />
      <dl className="facts">
        <Fact term="Queued now">{figures?.queue_depth ?? "…"}</Fact>
        <Fact term="Started in 24 h">
          {figures ? STATES.reduce((sum, state) => sum + figures.by_state[state], 0) : "…"}
        </Fact>
        <Fact term="Failed or timed out">
          {figures ? figures.by_state.reset + figures.by_state.timeout : "…"}
        </Fact>
      </dl>
      <div className="overview-grid">
        <Section name="by-state" title="Runs by state">
          <div className="chart">
            <StateBars byState={figures?.by_state} />
          </div>
          <DataTable
            className="by-state"
            caption="Runs of the last 24 hours by state"
            headers={["State", "Runs"]}
          >
            {STATES.map((state) => (
              <tr key={state} data-state={state}>
                <td>{stateText(state)}</td>
                <td>{figures ? figures.by_state[state] : "…"}</td>
              </tr>
            ))}
          </DataTable>
        </Section>
        <Section name="failing" title="Failures by skill">
          {figures?.failures_by_skill.length === 0 ? (
            <p className="muted">No run failed or timed out in the last 24 hours.</p>
          ) : (
            <DataTable
              className="failing"
              caption="Skills with the most failed runs in the last 24 hours"
              headers={["Skill", "Failed", "Timed out"]}
            >
              {(figures?.failures_by_skill ?? []).map((skill) => (
                <tr key={skill.skill_id} data-skill={skill.skill_id}>
                  <td>
                    <Link to={skillPath(skill.skill_id)}>{skill.skill_id}</Link>
                  </td>
                  <td>{skill.failed}</td>
                  <td>{skill.timed_out}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </Section>
      </div>
    </section>
  );
}
