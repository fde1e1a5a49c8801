import type { Request } from "express";

/** What a link base reads of a request: its peer, and what a trusted proxy says it asked for. */
export type Origin = Pick<Request, "protocol" | "host" | "socket" | "app">;

/**
 * The base of the absolute links the server writes (`video_url`, `Link: rel="next"`):
 * PUBLIC_URL when set; else, when the peer is a proxy TRUST_PROXY trusts (Express's `trust
 * proxy` setting, whose compiled test Express keeps as `trust proxy fn`), the scheme and host the
 * proxy forwarded; else the address the server is configured and bound to. A client's own `Host`
 * header never shapes a link on its own, so links cannot be poisoned through it.
 */
export function linkBaseOf(options: {
  publicUrl: string | undefined;
  serverUrl: () => string;
}): (req: Origin) => string {
  const { publicUrl } = options;
  if (publicUrl !== undefined) {
    const base = publicUrl.replace(/\/+$/, "");
    return () => base;
  }
  return (req) => {
    const trusts = req.app.get("trust proxy fn") as (address: string, hop: number) => boolean;
    const peer = req.socket.remoteAddress;
    if (peer !== undefined && trusts(peer, 0) && req.host) return `${req.protocol}://${req.host}`;
    return options.serverUrl().replace(/\/+$/, "");
  };
}

/** `http://host:port` for an address the server listens on (IPv6 literals in brackets). */
export function serverUrlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
