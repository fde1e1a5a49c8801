import type { RunEvent } from "../domain/api-types.js";
import { withRepositories } from "./with-database.js";

/** Events read per page of the step log. */
const PAGE = 500;

/**
 * `skillrun runs log <id> --owner O`: a run's step log, one line per event, oldest first: when,
 * which step, what happened, the message, what the step acted on (its detail) and the file its
 * failure left, each part only when the event has it.
 */
export async function runsLog(runId: string, owner: string): Promise<number> {
  const lines = await withRepositories(async (repos) => {
    const read: string[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await repos.runEvents.list(owner, runId, {
        limit: PAGE,
        ...(after !== undefined && { after }),
      });
      if (page === null) return null;
      read.push(...page.events.map(logLine));
      if (page.next === undefined) return read;
      after = page.next;
    }
  });
  if (lines === null) {
    console.error(`skillrun: owner "${owner}" has no run "${runId}"`);
    return 1;
  }
  for (const line of lines) console.log(line);
  return 0;
}

/** One event as a line: `<at>  <step>  <type>  <message>  <detail>  file <name>`. */
export function logLine(event: RunEvent): string {
  const parts = [event.at, event.step?.label ?? "run", event.type];
  if (event.message) parts.push(oneLine(event.message));
  if (event.detail) parts.push(`— ${event.detail}`);
  if (event.file) parts.push(`file ${event.file}`);
  return parts.join("  ");
}

/** A message on one line: a multi-line one would read as several events. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ");
}
