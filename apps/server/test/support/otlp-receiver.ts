import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A span as an OTLP/HTTP JSON export carries it, its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  service: string;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

/**
 * A collector's OTLP/HTTP receiver on loopback: it takes `POST /v1/traces` in the JSON encoding
 * (what `@opentelemetry/exporter-trace-otlp-http` sends) and keeps every span.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;

  get endpoint(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (address === undefined) throw new Error("the receiver is not listening");
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        if (req.url !== "/v1/traces" || !req.headers["content-type"]?.includes("json")) {
          res.writeHead(415).end();
          return;
        }
        this.take(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Waits until the spans received satisfy `done`; gives them. */
  async until(done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.spans)) {
      if (Date.now() > deadline) {
        const names = this.spans.map((s) => s.name).join(", ");
        throw new Error(`spans never arrived as expected; received: ${names}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.spans;
  }

  private take(body: {
    resourceSpans?: {
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: { spans?: Record<string, unknown>[] }[];
    }[];
  }): void {
    for (const resource of body.resourceSpans ?? []) {
      const service = String(attributesOf(resource.resource?.attributes)["service.name"] ?? "");
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: String(span.traceId),
            spanId: String(span.spanId),
            parentSpanId: String(span.parentSpanId ?? ""),
            name: String(span.name),
            attributes: attributesOf(span.attributes as KeyValue[] | undefined),
            links: ((span.links ?? []) as { traceId: string; spanId: string }[]).map((l) => ({
              traceId: l.traceId,
              spanId: l.spanId,
            })),
            service,
          });
        }
      }
    }
  }
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? ""));
  }
  return out;
}
