import { isIP } from "node:net";

/** A host as connections see it: a name (lower case, no trailing dot) or an IP literal. */
export type Host = { kind: "name"; name: string } | { kind: "ip"; address: string };

/**
 * Normalises a host the way the WHATWG URL parser does (which is also how getaddrinfo reads
 * numbers): `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1` are all 127.0.0.1,
 * `[::ffff:127.0.0.1]` is ::ffff:7f00:1, names are lower-cased; trailing dots go. Undefined when
 * it is no host at all.
 */
export function normaliseHost(host: string): Host | undefined {
  let text = host.trim();
  if (text === "") return undefined;
  // A bare IPv6 literal (as a CONNECT line or a socket gives it) needs its brackets for URL.
  if (!text.startsWith("[") && isIP(text) === 6) text = `[${text}]`;
  let hostname: string;
  try {
    const url = new URL(`http://${text}/`);
    // Anything beyond a host (a port, a path, credentials) is not a host.
    if (url.port !== "" || url.username !== "" || url.pathname !== "/") return undefined;
    hostname = url.hostname;
  } catch {
    return undefined;
  }
  if (hostname.startsWith("[")) return { kind: "ip", address: hostname.slice(1, -1) };
  if (isIP(hostname) === 4) return { kind: "ip", address: hostname };
  const name = hostname.replace(/\.+$/, "");
  if (name === "") return undefined;
  // `127.0.0.1.` is parsed as a name by URL only when its last part is not a number.
  if (isIP(name) !== 0) return { kind: "ip", address: name };
  return { kind: "name", name };
}
