-- Live streams are woken when what they read is written, by any process: a NOTIFY on the run
-- signal channel, sent at commit (and not at all on a rollback); one per transaction and payload.

CREATE FUNCTION "skillrun_notify_run_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('skillrun_runs', 'stream:run:' || NEW."run_id");
  RETURN NULL;
END
$$;

CREATE TRIGGER "run_events_notify" AFTER INSERT ON "run_events"
  FOR EACH ROW EXECUTE FUNCTION "skillrun_notify_run_event"();

CREATE FUNCTION "skillrun_notify_run_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('skillrun_runs', 'stream:changes');
  RETURN NULL;
END
$$;

CREATE TRIGGER "run_changes_notify" AFTER INSERT ON "run_changes"
  FOR EACH ROW EXECUTE FUNCTION "skillrun_notify_run_change"();
