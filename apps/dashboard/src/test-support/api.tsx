import { createSkillrunClient, type RunEvent } from "@skillrun/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ApiProvider } from "../api/api-context.js";
import { type Rendered, render } from "./render.js";

/** What the fake server answers: a Response for each request the client sends. */
export type Answer = (request: Request) => Response | Promise<Response>;

/** A JSON answer, as the API gives one. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A 422 as the API words it: one issue per `[loc, msg]`. */
export function refused(...issues: [(string | number)[], string][]): Response {
  return json({ detail: issues.map(([loc, msg]) => ({ loc, msg, type: "value_error" })) }, 422);
}

/**
 * A run's step log as `GET /v1/run/{id}/events/stream` sends it to `request`: `events` (those
 * after its `Last-Event-ID`), then the stream stays open (the run goes on) until the client lets
 * go of it.
 */
export function eventStream(request: Request, events: RunEvent[]): Response {
  const after = Number(request.headers.get("last-event-id") ?? -1);
  const text = events
    .filter((event) => event.id > after)
    .map((event) => `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text.join("")));
      request.signal.addEventListener("abort", () => controller.error(request.signal.reason), {
        once: true,
      });
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/**
 * The events of a run that `GET /v1/run/{id}` and its events API answer with: one page of
 * `GET /events` holds `written`, and the stream (after the last of them) sends `streamed`.
 */
export function runAnswers(request: Request, written: RunEvent[], streamed: RunEvent[] = []) {
  const path = new URL(request.url).pathname;
  if (path.endsWith("/events/stream")) return eventStream(request, [...written, ...streamed]);
  if (path.endsWith("/events")) return json(written);
  return undefined;
}

export interface RenderedWithApi extends Rendered {
  /** Every request the client sent, in order ("METHOD /path?query"). */
  calls: string[];
  /** The JSON bodies of those requests, by the same index (undefined when none). */
  bodies: unknown[];
  queryClient: QueryClient;
}

/** Renders `ui` signed in, with the typed client sending its requests to `answer`. */
export async function renderWithApi(ui: ReactNode, answer: Answer): Promise<RenderedWithApi> {
  const calls: string[] = [];
  const bodies: unknown[] = [];
  const client = createSkillrunClient({
    baseUrl: "http://dashboard.test/v1",
    apiKey: "sk_test",
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      calls.push(`${request.method} ${url.pathname.replace(/^\/v1/, "")}${url.search}`);
      const text = request.body ? await request.clone().text() : "";
      bodies.push(
        text && request.headers.get("content-type")?.includes("json")
          ? JSON.parse(text)
          : undefined,
      );
      return answer(request);
    },
  });
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const signedIn = (inner: ReactNode) => (
    <QueryClientProvider client={queryClient}>
      <ApiProvider client={client} signOut={() => {}}>
        {inner}
      </ApiProvider>
    </QueryClientProvider>
  );
  const rendered = await render(signedIn(ui));
  return {
    ...rendered,
    rerender: (next) => rendered.rerender(signedIn(next)),
    calls,
    bodies,
    queryClient,
  };
}
