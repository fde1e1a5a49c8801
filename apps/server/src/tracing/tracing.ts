import type { Config } from "../config.js";

/** The engine's OpenTelemetry module, loaded only when tracing is on. */
export type TracingModule = typeof import("@skillrun/engine/tracing");

/** A process's tracing: its tracer, the module's helpers, and where the spans go. */
export interface Tracing {
  tracer: InstanceType<TracingModule["OtlpTracer"]>;
  module: TracingModule;
  target: { endpoint: string; serviceName: string };
}

/**
 * The process's tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set; undefined otherwise, and then
 * OpenTelemetry is not even loaded (docs/decisions/0063-traces-with-explicit-context.md).
 */
export async function loadTracing(config: Config): Promise<Tracing | undefined> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined) return undefined;
  const module = await import("@skillrun/engine/tracing");
  const target = { endpoint, serviceName: config.OTEL_SERVICE_NAME };
  return { tracer: new module.OtlpTracer(target), module, target };
}

// A traceparent as W3C Trace Context writes it (version 00): what a client may send us.
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The caller's traceparent header when it is one, else undefined (a new trace begins). */
export function incomingTraceparent(header: string | string[] | undefined): string | undefined {
  return typeof header === "string" && TRACEPARENT.test(header) ? header : undefined;
}

/** The trace id of a traceparent: what log lines carry as `trace_id`. */
export function traceIdOf(traceparent: string): string {
  return traceparent.split("-")[1] as string;
}
