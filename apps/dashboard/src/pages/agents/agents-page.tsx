import { useApi } from "../../api/api-context.js";
import { DataTable } from "../../components/data-table.js";
import { ErrorNote } from "../../components/error-note.js";
import { Loading } from "../../components/loading.js";
import { RelativeTime, useNow } from "../../components/time.js";
import { Link, runPath, useTitle } from "../../router.js";

// The list is read again this often: an agent's contact and the runs it holds change as it works.
const REFRESH_MS = 10_000;

/**
 * The owner's agents (`skillrun agent` on users' machines, which execute `environment: client`
 * runs): name, version, whether it is connected, its last contact, the runs it holds.
 */
export function AgentsPage() {
  useTitle("Agents");
  const { $api } = useApi();
  const agents = $api.useQuery("get", "/agent/list", {}, { refetchInterval: REFRESH_MS });
  const now = useNow(REFRESH_MS);
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <p className="muted">
        Agents execute runs started with <code>"environment": "client"</code> on your own machines.
        Start one with <code>skillrun agent --server &lt;url&gt;</code> and a key of scope{" "}
        <code>agent</code>.
      </p>
      <ErrorNote error={agents.error} prefix="The agents could not be listed" />
      {agents.isPending && <Loading what="agents" />}
      {agents.data?.length === 0 && (
        <p className="empty">No agent has called within the last day: client runs wait for one.</p>
      )}
      {agents.data && agents.data.length > 0 && (
        <DataTable
          className="agents"
          caption="Agents"
          headers={["Name", "Version", "Status", "Last contact", "Runs under way"]}
        >
          {agents.data.map((agent) => (
            <tr key={agent.id}>
              <td>
                {agent.name}
                <span className="sub mono"> {agent.id}</span>
              </td>
              <td className="mono">{agent.version}</td>
              <td>{agent.connected ? "connected" : "not connected"}</td>
              <td>
                <RelativeTime iso={agent.last_contact_at} now={now} />
              </td>
              <td>
                {agent.runs.length === 0
                  ? "none"
                  : agent.runs.map((id) => (
                      <Link key={id} to={runPath(id)} className="mono">
                        {id}
                      </Link>
                    ))}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
