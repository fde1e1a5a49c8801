import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { Metrics } from "./metrics.js";
import { metricsEndpoint } from "./metrics-endpoint.js";

/** A process's own metrics listener: what a `skillrun worker` (no API) answers on METRICS_PORT. */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Answers `GET /metrics` (and nothing else: a 404) on host:port, with the rules of the API
 * server's own /metrics (METRICS_TOKEN, else loopback only).
 */
export async function listenForMetrics(
  metrics: Metrics,
  token: string | undefined,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const app = express();
  app.disable("x-powered-by");
  app.get("/metrics", metricsEndpoint(metrics, token));
  app.use((_req, res) => {
    res.status(404).json({ detail: "Not Found" });
  });
  const server: Server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
