import { expect } from "vitest";
import { Metrics } from "../../src/metrics/metrics.js";
import { startTestServer, type TestServer } from "../../src/test-support/test-server.js";
import type { Table } from "./contract-table.js";
import { call, type Reply } from "./http.js";
import { outsideAddress } from "./outside-address.js";

/**
 * The contract table's rows for `GET /metrics` (getMetrics), served at the root beside `/v1`
 * and guarded by METRICS_TOKEN or loopback rather than an API key. contract-table.ts adds them.
 */

const TOKEN = "contract-metrics-token-5c1e";

/** Sends `send` to a server of its own (started with `env`), closed afterwards. */
async function onServer(
  options: Parameters<typeof startTestServer>[0],
  send: (server: TestServer) => Promise<Reply>,
): Promise<Reply> {
  const server = await startTestServer(options);
  try {
    return await send(server);
  } finally {
    await server.close();
  }
}

/** Metrics whose queue count fails, as it does when the database does. */
function failingMetrics(): Metrics {
  const metrics = new Metrics();
  metrics.queuedRuns(() => Promise.reject(new Error("the database is gone")));
  return metrics;
}

export function metricsRows(): Table {
  return {
    getMetrics: {
      "200": [
        {
          name: "a client on loopback, no METRICS_TOKEN set",
          send: (ctx) => call(ctx.main.origin, "GET", "/metrics"),
          check: (reply) => expect(reply.text).toContain("# TYPE skillrun_queued_runs gauge"),
        },
        {
          name: "a client elsewhere with METRICS_TOKEN as its bearer",
          send: () =>
            onServer({ env: { HOST: "0.0.0.0", METRICS_TOKEN: TOKEN } }, (server) =>
              call(`http://${outsideAddress()}:${new URL(server.origin).port}`, "GET", "/metrics", {
                headers: { authorization: `Bearer ${TOKEN}` },
              }),
            ),
        },
      ],
      "401": [
        {
          name: "METRICS_TOKEN set, no bearer",
          send: () =>
            onServer({ env: { METRICS_TOKEN: TOKEN } }, (server) =>
              call(server.origin, "GET", "/metrics"),
            ),
        },
        {
          name: "METRICS_TOKEN set, an API key's bearer instead",
          send: (ctx) =>
            onServer({ env: { METRICS_TOKEN: TOKEN } }, (server) =>
              call(server.origin, "GET", "/metrics", { key: ctx.alice }),
            ),
        },
      ],
      "403": [
        {
          name: "no METRICS_TOKEN, a client not on loopback",
          send: () =>
            onServer({ env: { HOST: "0.0.0.0" } }, (server) =>
              call(`http://${outsideAddress()}:${new URL(server.origin).port}`, "GET", "/metrics"),
            ),
        },
      ],
      "500": [
        {
          name: "when the queue's count fails",
          send: () =>
            onServer({ override: (deps) => ({ ...deps, metrics: failingMetrics() }) }, (server) =>
              call(server.origin, "GET", "/metrics"),
            ),
          check: (reply) => {
            expect(reply.body).toEqual({ detail: "Internal Server Error" });
            expect(reply.text).not.toContain("the database is gone");
          },
        },
      ],
    },
  };
}
