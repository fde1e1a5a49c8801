-- Live streams are woken on a channel of their own, so that only the processes that serve them
-- listen: a worker-only process no longer hears (and drops) a notification for every event and
-- change every run writes. The payloads are unchanged.

CREATE OR REPLACE FUNCTION "skillrun_notify_run_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('skillrun_streams', 'stream:run:' || NEW."run_id");
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION "skillrun_notify_run_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('skillrun_streams', 'stream:changes');
  RETURN NULL;
END
$$;
