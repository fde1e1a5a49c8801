import { normaliseHost } from "./host.js";
import { type IPv4, type IPv6, ipaddr } from "./ipaddr.js";

/** One entry of a policy's `allowedHosts`: a name, or an address range, maybe with a port. */
type AllowEntry =
  | { kind: "name"; name: string; port?: number }
  | { kind: "range"; range: [IPv4 | IPv6, number]; port?: number };

/** What a connection is about to reach. */
export interface Destination {
  /** The normalised name asked for, when it was a name. */
  name?: string;
  /** The address it resolved to (or the literal). */
  address: string;
  port: number;
}

/** The parsed allow-list: whether a destination is let through although the rules forbid it. */
export interface AllowList {
  allows(destination: Destination): boolean;
  /** The ports the list lets through to this host when it allows it on some ports only. */
  onlyPortsFor(destination: Omit<Destination, "port">): number[];
}

/**
 * Parses entries such as `internal.example`, `internal.example:8443`, `10.1.2.3`,
 * `127.0.0.1:8080`, `[::1]:8080`, `10.0.0.0/8` or `fd00::/8`. Throws on an entry that is none of
 * these, so a typo in the configuration is found at start-up.
 */
export function parseAllowList(entries: readonly string[]): AllowList {
  const parsed = entries.map(parseEntry);
  return {
    allows(destination) {
      return parsed.some((entry) => matches(entry, destination));
    },
    onlyPortsFor(destination) {
      const ports = parsed.flatMap((entry) =>
        entry.port !== undefined && matches(entry, { ...destination, port: entry.port })
          ? [entry.port]
          : [],
      );
      return [...new Set(ports)].sort((a, b) => a - b);
    },
  };
}

function parseEntry(text: string): AllowEntry {
  const entry = text.trim();
  if (entry.includes("/")) {
    try {
      return { kind: "range", range: ipaddr.parseCIDR(entry) };
    } catch {
      throw new Error(`allowed host ${JSON.stringify(text)}: not a CIDR range`);
    }
  }
  const { host, port } = splitPort(entry, text);
  const normalised = normaliseHost(host);
  if (normalised === undefined) throw new Error(`allowed host ${JSON.stringify(text)}: not a host`);
  const withPort = port === undefined ? {} : { port };
  if (normalised.kind === "name") return { kind: "name", name: normalised.name, ...withPort };
  const address = ipaddr.parse(normalised.address);
  return {
    kind: "range",
    range: [address, address.kind() === "ipv4" ? 32 : 128],
    ...withPort,
  };
}

/** `host:port`, `[v6]:port` or a bare host (a bare IPv6 literal has several colons). */
function splitPort(entry: string, text: string): { host: string; port?: number } {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(entry);
  if (match === null) return { host: entry };
  const port = Number(match[2]);
  if (!(port >= 1 && port <= 65535))
    throw new Error(`allowed host ${JSON.stringify(text)}: bad port`);
  return { host: match[1] as string, port };
}

function matches(entry: AllowEntry, destination: Destination): boolean {
  if (entry.port !== undefined && entry.port !== destination.port) return false;
  if (entry.kind === "name") return entry.name === destination.name;
  let address: IPv4 | IPv6;
  try {
    address = ipaddr.process(destination.address);
  } catch {
    return false;
  }
  const [base] = entry.range;
  // An IPv4 range also covers the IPv4-mapped IPv6 form, which `process` turns back into IPv4.
  return address.kind() === base.kind() && address.match(entry.range);
}
