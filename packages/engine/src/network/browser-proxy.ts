import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type NetworkGuard, NetworkRefused, portOf } from "./guard.js";

/** A forward proxy on loopback through which the run's browser makes every request. */
export interface GuardedProxy {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** Chromium's flags that send every request, loopback included, through the proxy. */
  chromiumArgs: string[];
  close(): Promise<void>;
}

/** Marks the proxy's own refusals, so a navigation step can tell one from a page's 403. */
export const REFUSED_HEADER = "x-skillrun-refused";

/** Headers that concern one hop only (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/**
 * Starts the proxy: plain http requests come as absolute URIs, https and WebSockets as CONNECT
 * tunnels. Each connection is resolved through the guard and made to the address it judged, so
 * navigation, redirects, subresources, fetch/XHR and WebSockets are held to the run's network
 * policy and DNS rebinding cannot slip past it. `report` hears each refusal in words (other
 * failures, such as a name that does not resolve, are the page's to see, as without a proxy).
 */
export async function startGuardedProxy(
  guard: NetworkGuard,
  report: (message: string) => void,
): Promise<GuardedProxy> {
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const server = createServer((req, res) => {
    forward(guard, req, res, report).catch(() => res.destroy());
  });
  server.on("connection", track);
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(guard, req, client, head, report, track);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    chromiumArgs: [
      `--proxy-server=${url}`,
      // Chromium sends loopback addresses past any proxy unless told not to.
      "--proxy-bypass-list=<-loopback>",
      // WebRTC would otherwise send UDP past the proxy (STUN and TURN servers a page names, at
      // any address): only connections through the proxy, which carries no UDP. Chromium reads
      // the policy from the second switch; the first, its older name, is kept for older builds.
      "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
      "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    ],
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A plain http request: `GET http://host:port/path HTTP/1.1`. */
async function forward(
  guard: NetworkGuard,
  req: IncomingMessage,
  res: ServerResponse,
  report: (message: string) => void,
): Promise<void> {
  const method = req.method ?? "GET";
  let target: URL;
  try {
    target = new URL(req.url ?? "");
    if (target.protocol !== "http:") throw new Error("not http");
  } catch {
    respond(res, 400, "the proxy takes absolute http:// addresses only");
    return;
  }
  const port = portOf(target);
  let address: string;
  try {
    address = await firstAddress(guard, target.hostname, port);
  } catch (error) {
    const message = refusal(`${method} ${target.href}`, error);
    if (error instanceof NetworkRefused) {
      report(message);
      respond(res, 403, message, { [REFUSED_HEADER]: encodeURIComponent(error.message) });
    } else {
      respond(res, 502, message);
    }
    return;
  }
  const upstream = request({
    host: address,
    port,
    method,
    path: `${target.pathname}${target.search}`,
    headers: endToEnd(req.headers),
    // The Host header comes from the browser's request, as it asked for the name.
    setHost: false,
  });
  upstream.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
    answer.pipe(res);
  });
  upstream.on("error", (error) => {
    if (res.headersSent) res.destroy();
    else respond(res, 502, `${method} ${target.href} failed: ${error.message}`);
  });
  res.on("close", () => upstream.destroy());
  req.pipe(upstream);
}

/** `CONNECT host:port`: https, and WebSockets. */
function tunnel(
  guard: NetworkGuard,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  report: (message: string) => void,
  track: (socket: Duplex) => void,
): void {
  const authority = req.url ?? "";
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  client.on("error", () => client.destroy());
  if (match === null) {
    client.end(statusLine(400, "the proxy takes CONNECT host:port only"));
    return;
  }
  const host = match[1] as string;
  const port = Number(match[2]);
  firstAddress(guard, host, port).then(
    (address) => {
      const upstream: Socket = connect({ host: address, port });
      track(upstream);
      upstream.once("connect", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", (error) => {
        if (upstream.connecting) client.end(statusLine(502, error.message));
        else client.destroy();
      });
      client.once("close", () => upstream.destroy());
    },
    (error: unknown) => {
      const message = refusal(`CONNECT ${authority}`, error);
      if (error instanceof NetworkRefused) report(message);
      client.end(statusLine(error instanceof NetworkRefused ? 403 : 502, message));
    },
  );
}

async function firstAddress(guard: NetworkGuard, host: string, port: number): Promise<string> {
  const [first] = await guard.resolve(host, port);
  return (first as { address: string }).address;
}

function refusal(what: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return error instanceof NetworkRefused
    ? `${what} refused: ${reason}`
    : `${what} failed: ${reason}`;
}

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.includes(name)) kept[name] = value;
  }
  return kept;
}

function respond(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    connection: "close",
    ...headers,
  });
  res.end(`${message}\n`);
}

function statusLine(status: number, message: string): string {
  const body = `${message}\n`;
  const reason = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway";
  return (
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}
