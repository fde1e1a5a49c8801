/** Whether the run form starts a run now or creates a schedule: two radio buttons. */
export function RunWhen(props: { scheduling: boolean; onChange: (scheduling: boolean) => void }) {
  return (
    <fieldset className="run-when">
      <legend>When</legend>
      <label className="check">
        <input
          type="radio"
          name="run-when"
          checked={!props.scheduling}
          onChange={() => props.onChange(false)}
        />{" "}
        Now
      </label>
      <label className="check">
        <input
          type="radio"
          name="run-when"
          checked={props.scheduling}
          onChange={() => props.onChange(true)}
        />{" "}
        On a schedule
      </label>
    </fieldset>
  );
}
