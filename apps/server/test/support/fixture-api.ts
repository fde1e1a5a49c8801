import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fixture API received it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. `/orders/ord_1?x=1`. */
  url: string;
  /** Lower-case names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body as text ("" when there was none). */
  body: string;
}

/** What a route answers: JSON, or text with a content type. */
export type FixtureReply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; text: string; type?: string; headers?: Record<string, string> };

/** Answers one request; `calls` counts this route's requests, this one included. */
export type FixtureRoute = (request: ReceivedRequest, calls: number) => FixtureReply;

/**
 * A small HTTP API on a random loopback port that stands in for the services example skills
 * call: routes by method and path (query ignored), every request kept for the test to inspect,
 * anything unrouted a 404.
 */
export class FixtureApi {
  /** Every request received since the last `reset`, in order. */
  readonly received: ReceivedRequest[] = [];
  private readonly routes = new Map<string, FixtureRoute>();
  private readonly calls = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    /** e.g. http://127.0.0.1:40123 */
    readonly origin: string,
  ) {}

  static async start(): Promise<FixtureApi> {
    let api: FixtureApi | undefined;
    const server = createServer((request, response) => {
      void (async () => {
        let body = "";
        for await (const chunk of request) body += chunk;
        const received: ReceivedRequest = {
          method: request.method ?? "GET",
          url: request.url ?? "/",
          headers: request.headers,
          body,
        };
        const reply = api?.answer(received) ?? notFound(received);
        const headers = { ...reply.headers };
        let text: string;
        if ("json" in reply) {
          headers["content-type"] = "application/json";
          text = JSON.stringify(reply.json);
        } else {
          headers["content-type"] = reply.type ?? "text/plain; charset=utf-8";
          text = reply.text;
        }
        response.writeHead(reply.status, headers).end(text);
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    api = new FixtureApi(server, `http://127.0.0.1:${port}`);
    return api;
  }

  /** Routes `METHOD /path` to `route`, replacing any earlier route of that key. */
  on(method: string, path: string, route: FixtureRoute): this {
    this.routes.set(`${method} ${path}`, route);
    return this;
  }

  /** The requests received for `METHOD /path` (query ignored). */
  requestsTo(method: string, path: string): ReceivedRequest[] {
    return this.received.filter((r) => r.method === method && pathOf(r.url) === path);
  }

  /** Forgets every route, request and count, for the next test. */
  reset(): void {
    this.routes.clear();
    this.calls.clear();
    this.received.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(request: ReceivedRequest): FixtureReply {
    this.received.push(request);
    const key = `${request.method} ${pathOf(request.url)}`;
    const route = this.routes.get(key);
    if (route === undefined) return notFound(request);
    const calls = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, calls);
    return route(request, calls);
  }
}

function pathOf(url: string): string {
  return new URL(url, "http://fixture").pathname;
}

function notFound(request: ReceivedRequest): FixtureReply {
  return { status: 404, json: { detail: `no route for ${request.method} ${pathOf(request.url)}` } };
}
