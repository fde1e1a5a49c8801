import type { Skill } from "@skillrun/client";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { CallFailed, messageOf } from "../../api/errors.js";
import { controlProps, Field } from "../../components/field.js";
import { type InputDraft, initialDraft } from "../../components/run-form/input-draft.js";
import { InputField } from "../../components/run-form/input-field.js";
import { NextRunsPreview } from "./next-runs-preview.js";
import type { ScheduleOverlap } from "./schedule-types.js";
import { type ScheduleTiming, useCreateSchedule } from "./use-create-schedule.js";

const OVERLAPS: { value: ScheduleOverlap; text: string }[] = [
  { value: "skip", text: "skip the tick while the last run has not ended" },
  { value: "buffer_one", text: "run it once the last run has ended (one kept)" },
  { value: "allow", text: "run it anyway" },
];

/** The reader's own time zone, the first guess for a new schedule's. */
function readerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/**
 * The run form's inputs and a cron, a time zone, what a tick does while the last run is open,
 * and how late a missed tick may still fire: creates a schedule of the skill. The server
 * checks it all (a bad cron, an unknown zone, a cron firing too often) and its 422s are shown
 * at their fields; the next runs the cron and zone give are shown as they are typed, as the
 * server computes them.
 */
export function ScheduleForm(props: { skill: Skill }) {
  const formId = useId();
  const { inputs } = props.skill;
  const [draft, setDraft] = useState<InputDraft>(() => initialDraft(inputs, undefined));
  const [timing, setTiming] = useState<ScheduleTiming>(() => ({
    cron: "0 7 * * MON-FRI",
    timezone: readerZone(),
    overlap: "skip",
    catchup: "0",
  }));
  const { create, issues } = useCreateSchedule(props.skill);
  const set = (field: keyof ScheduleTiming, value: string) =>
    setTiming({ ...timing, [field]: value });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ draft, timing });
  }

  const refused = create.error instanceof CallFailed && create.error.issues.length > 0;
  const general = issues.other ?? (create.error && !refused ? messageOf(create.error) : undefined);
  return (
    <form
      className="run-form schedule-form"
      onSubmit={submit}
      noValidate
      aria-describedby={general ? `${formId}-error` : undefined}
    >
      <TimingField
        id={`${formId}-cron`}
        label="Cron"
        issue={issues.timing.cron}
        help="5 fields (minute hour day month weekday) or 6 with seconds first, e.g. 0 7 * * MON-FRI"
      >
        <input
          {...controlProps(`${formId}-cron`, true, issues.timing.cron, "cron")}
          className="mono"
          required
          value={timing.cron}
          onChange={(e) => set("cron", e.target.value)}
        />
      </TimingField>
      <TimingField
        id={`${formId}-timezone`}
        label="Time zone"
        issue={issues.timing.timezone}
        help="An IANA name, e.g. Europe/Berlin or UTC"
      >
        <input
          {...controlProps(`${formId}-timezone`, true, issues.timing.timezone, "timezone")}
          required
          value={timing.timezone}
          onChange={(e) => set("timezone", e.target.value)}
        />
      </TimingField>
      <NextRunsPreview cron={timing.cron} timezone={timing.timezone} />
      <TimingField
        id={`${formId}-overlap`}
        label="While the last run has not ended"
        issue={issues.timing.overlap}
        help={undefined}
      >
        <select
          {...controlProps(`${formId}-overlap`, undefined, issues.timing.overlap, "overlap")}
          value={timing.overlap}
          onChange={(e) => set("overlap", e.target.value)}
        >
          {OVERLAPS.map((overlap) => (
            <option key={overlap.value} value={overlap.value}>
              {overlap.text}
            </option>
          ))}
        </select>
      </TimingField>
      <TimingField
        id={`${formId}-catchup`}
        label="Catch up"
        issue={issues.timing.catchup}
        help="After downtime, the latest missed tick still fires if at most this late (30m, 2h; 0: none)"
      >
        <input
          {...controlProps(`${formId}-catchup`, true, issues.timing.catchup, "catchup")}
          className="mono"
          value={timing.catchup}
          onChange={(e) => set("catchup", e.target.value)}
        />
      </TimingField>
      {inputs.map((input) => (
        <InputField
          key={input.json_key}
          input={input}
          value={draft[input.json_key] ?? null}
          issue={issues.inputs[input.json_key]}
          onChange={(value) => setDraft({ ...draft, [input.json_key]: value })}
        />
      ))}
      {(general || refused) && (
        <p id={general ? `${formId}-error` : undefined} className="error" role="alert">
          {general || "The schedule was not created: see the fields marked above."}
        </p>
      )}
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create schedule"}
      </button>
    </form>
  );
}

function TimingField(props: {
  id: string;
  label: string;
  help: string | undefined;
  issue: string | undefined;
  children: ReactNode;
}) {
  return (
    <Field id={props.id} label={props.label} check={false} help={props.help} issue={props.issue}>
      {props.children}
    </Field>
  );
}
