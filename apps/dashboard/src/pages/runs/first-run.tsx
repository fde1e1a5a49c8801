import { Link } from "../../router.js";

/** The empty list of a caller with no runs yet: how to start one here, or from a terminal. */
export function FirstRun() {
  return (
    <div className="empty" role="status">
      <h2>No runs yet</h2>
      <p>
        A run is one execution of a skill. Open <Link to="/skills">Skills</Link>, choose one (the
        demo server has <em>Order in the demo shop</em>, which needs no inputs) and press{" "}
        <strong>Run</strong>. It appears here at once and changes as it goes.
      </p>
      <p>From a terminal, with your key in KEY:</p>
      <pre>
        {`curl -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
     -d '{"skill_id": "skill_demo_shop_order"}' ${window.location.origin}/v1/run/`}
      </pre>
    </div>
  );
}
