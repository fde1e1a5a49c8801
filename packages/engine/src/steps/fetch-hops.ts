import type { Dispatcher } from "undici";
import type { NetworkGuard } from "../network/guard.js";

/** What fetch follows at most, as browsers and Node's fetch do. */
export const MAX_REDIRECTS = 20;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language"];
/** Credentials meant for the origin they were given for, never sent on to another. */
const ORIGIN_HEADERS = ["authorization", "proxy-authorization", "cookie"];

export interface HopRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Follows 3xx answers with a Location (true), or gives the 3xx itself (false). */
  follow: boolean;
  /** The Cookie header for one hop's address (the browser's cookies for it), if any. */
  cookies?: ((url: string) => Promise<string | undefined>) | undefined;
  guard: NetworkGuard;
  dispatcher: Dispatcher;
  signal: AbortSignal;
}

/** The answer, and where it came from. */
export interface Fetched {
  response: Response;
  /** The address that answered: the last hop's. */
  url: string;
  redirected: boolean;
}

/**
 * Fetches `url` following redirects one hop at a time rather than leaving it to fetch, so that
 * each hop is checked by the guard before it is asked (the dispatcher checks again when it
 * connects), gets the cookies meant for its own address, and loses the credentials of another
 * origin. Methods change as fetch changes them (303, and 301/302 after a POST, become a GET).
 * Throws the guard's NetworkRefused for a hop the policy forbids.
 */
export async function fetchHops(url: string, request: HopRequest): Promise<Fetched> {
  let current = url;
  let { method, body } = request;
  let headers = { ...request.headers };
  for (let hop = 0; ; hop += 1) {
    if (hop > 0) await request.guard.checkUrl(current);
    const sent = { ...headers };
    const cookie = await request.cookies?.(current);
    if (cookie !== undefined) {
      const given = takeHeader(sent, "cookie");
      sent.cookie = given === undefined ? cookie : `${given}; ${cookie}`;
    }
    // Node's fetch takes an undici dispatcher; its RequestInit type does not say so.
    const response = await fetch(current, {
      method,
      headers: sent,
      body,
      redirect: "manual",
      signal: request.signal,
      dispatcher: request.dispatcher,
    } as RequestInit);
    const location = response.headers.get("location");
    if (!request.follow || !REDIRECT_STATUSES.has(response.status) || location === null) {
      return { response, url: current, redirected: hop > 0 };
    }
    await response.body?.cancel().catch(() => undefined);
    if (hop === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    const next = nextAddress(location, current);
    const { status } = response;
    const toGet =
      status === 303 ? !["GET", "HEAD"].includes(method) : status <= 302 && method === "POST";
    if (toGet) {
      method = "GET";
      body = undefined;
      for (const name of BODY_HEADERS) takeHeader(headers, name);
    }
    if (new URL(next).origin !== new URL(current).origin) {
      headers = { ...headers };
      for (const name of ORIGIN_HEADERS) takeHeader(headers, name);
    }
    current = next;
  }
}

/** Where a Location sends the request: resolved against the hop that sent it, http(s) only. */
function nextAddress(location: string, from: string): string {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new Error(`redirected to ${JSON.stringify(location)}, which is not an address`);
  }
  if (!["http:", "https:"].includes(next.protocol)) {
    throw new Error(`redirected to ${next.href}: not an http:// or https:// address`);
  }
  return next.href;
}

/** Removes a header whatever the case of its name; gives its value when it was there. */
function takeHeader(headers: Record<string, string>, name: string): string | undefined {
  let value: string | undefined;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) {
      value = headers[key];
      delete headers[key];
    }
  }
  return value;
}
