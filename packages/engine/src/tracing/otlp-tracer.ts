import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

// Loaded only when tracing is on (`import()` of `@skillrun/engine/tracing`): a process that does
// not trace never loads OpenTelemetry. docs/decisions/0063-traces-with-explicit-context.md

/** Where a process's spans go: an OTLP/HTTP collector's base address, and the service's name. */
export interface OtlpTarget {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: spans are POSTed to `<endpoint>/v1/traces` (JSON). */
  endpoint: string;
  serviceName: string;
}

const propagator = new W3CTraceContextPropagator();

/**
 * One process's tracer, exporting in batches over OTLP/HTTP. Spans are started with explicit
 * parents (a `traceparent` string), never from an ambient context: the context crosses from the
 * API to the worker in the run's row and to the run process in its job.
 */
export class OtlpTracer {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;

  constructor(target: OtlpTarget) {
    const url = `${target.endpoint.replace(/\/+$/, "")}/v1/traces`;
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": target.serviceName }),
      // Sent every second: spans reach the collector soon after their run or request.
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url }),
          scheduledDelayMillis: 1000,
        }),
      ],
    });
    this.tracer = this.provider.getTracer("skillrun");
  }

  /**
   * Starts a span, the child of `parent` (a traceparent) when given, with `links` (traceparents)
   * to spans it follows from without being their child.
   */
  start(
    name: string,
    options: {
      parent?: string | null;
      links?: readonly string[];
      attributes?: Attributes;
      kind?: "server" | "internal" | "client";
    } = {},
  ): Span {
    const links: Link[] = (options.links ?? []).flatMap((traceparent) => {
      const context = spanContextOf(traceparent);
      return context === undefined ? [] : [{ context }];
    });
    const parent = options.parent ? contextOf(options.parent) : ROOT_CONTEXT;
    const kind =
      options.kind === "server"
        ? SpanKind.SERVER
        : options.kind === "client"
          ? SpanKind.CLIENT
          : SpanKind.INTERNAL;
    return this.tracer.startSpan(
      name,
      { kind, links, ...(options.attributes && { attributes: options.attributes }) },
      parent,
    );
  }

  /** Sends what is waiting; resolves once sent (or failed). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** The W3C traceparent of a span. */
export function traceparentOf(span: Span): string {
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier.traceparent as string;
}

/** Ends a span as failed with `message`, or as ok. */
export function endSpan(span: Span, error?: string): void {
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  span.end();
}

function contextOf(traceparent: string): Context {
  return propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
}

function spanContextOf(traceparent: string) {
  return trace.getSpanContext(contextOf(traceparent));
}
