import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call } from "./support/http.js";
import { type SkillrunProcess, startServerProcess } from "./support/skillrun-process.js";

/**
 * Tracing costs nothing when it is off: a `skillrun serve` without OTEL_EXPORTER_OTLP_ENDPOINT
 * never loads OpenTelemetry, which one with it set does (the same check, shown to see it).
 */

const dir = mkdtempSync(join(tmpdir(), "skillrun-loads-"));
const hook = new URL("./support/report-loads.mjs", import.meta.url).pathname;
const started: SkillrunProcess[] = [];

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** The modules a server loaded by the time it answered a few requests, one URL each. */
async function modulesLoaded(name: string, env: Record<string, string>): Promise<string[]> {
  const report = join(dir, `${name}.txt`);
  const server = await startServerProcess(`file:${join(dir, `${name}.db`)}`, {
    NODE_OPTIONS: `--import=${hook}`,
    LOAD_REPORT: report,
    WORKER_CONCURRENCY: "0",
    ...env,
  });
  started.push(server);
  expect((await call(server.id, "GET", "/healthz")).status).toBe(200);
  expect((await call(server.id, "GET", "/v1/run/list")).status).toBe(401);
  return readFileSync(report, "utf8").split("\n");
}

describe("tracing off", () => {
  it("never loads OpenTelemetry; tracing on does", { timeout: 180_000 }, async () => {
    const off = await modulesLoaded("off", {});
    expect(off.some((url) => url.includes("/@skillrun/server/") || url.includes("/dist/"))).toBe(
      true,
    );
    expect(off.filter((url) => url.includes("@opentelemetry"))).toEqual([]);
    const on = await modulesLoaded("on", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(on.some((url) => url.includes("@opentelemetry"))).toBe(true);
  });
});
