import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

/** A logger at `info` whose JSON lines are parsed into `lines` as they are written. */
export function loggedLines(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}
