import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import type { Metrics } from "./metrics.js";

/**
 * `GET /metrics`: the Prometheus text of this process's metrics. With a token (METRICS_TOKEN)
 * only `Authorization: Bearer <token>` is answered (401 otherwise); without one, only a peer on
 * loopback is (403 otherwise). The peer is the socket's: X-Forwarded-For, which anyone can send,
 * never makes a request local.
 */
export function metricsEndpoint(metrics: Metrics, token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return (req, res, next) => {
    if (expected !== undefined) {
      const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        res.setHeader("WWW-Authenticate", "Bearer");
        res.status(401).json({ detail: "Not authenticated" });
        return;
      }
    } else if (!isLoopback(req.socket.remoteAddress)) {
      res
        .status(403)
        .json({ detail: "metrics are answered on loopback only unless METRICS_TOKEN is set" });
      return;
    }
    metrics.text().then((text) => {
      res.setHeader("Content-Type", metrics.registry.contentType);
      res.setHeader("Cache-Control", "no-store");
      res.send(text);
    }, next);
  };
}

/** Compared as digests, so that the comparison takes as long whatever the length sent. */
function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether a socket's peer address is loopback (IPv4 127/8, IPv6 ::1, or 127/8 mapped into IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return v4.startsWith("127.") || address === "::1";
}
