import { type IPv4, type IPv6, ipaddr } from "./ipaddr.js";

/** Why an address may not be reached; `what` completes "… is <what>". */
export interface AddressRule {
  name: string;
  what: string;
}

const rule = (name: string, what: string): AddressRule => ({ name, what });

export const RULES = {
  metadata: rule("metadata", "a cloud metadata address"),
  unspecified: rule("unspecified", "an unspecified address"),
  loopback: rule("loopback", "a loopback address"),
  private: rule("private", "a private address"),
  linkLocal: rule("link-local", "a link-local address"),
  cgnat: rule("cgnat", "a carrier-grade NAT (shared) address"),
  multicast: rule("multicast", "a multicast address"),
  broadcast: rule("broadcast", "a broadcast address"),
  reserved: rule("reserved", "a reserved address"),
  invalid: rule("invalid", "not a valid host"),
} as const;

type Range = [IPv4 | IPv6, number];

function ranges(rule: AddressRule, cidrs: string[]): [Range, AddressRule][] {
  return cidrs.map((cidr) => [ipaddr.parseCIDR(cidr), rule]);
}

// First match wins, so the metadata addresses are named before the wider ranges that hold them.
const IPV4_RULES: [Range, AddressRule][] = [
  ...ranges(RULES.metadata, ["169.254.169.254/32", "169.254.170.2/32", "100.100.100.200/32"]),
  ...ranges(RULES.unspecified, ["0.0.0.0/8"]),
  ...ranges(RULES.loopback, ["127.0.0.0/8"]),
  ...ranges(RULES.private, ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]),
  ...ranges(RULES.linkLocal, ["169.254.0.0/16"]),
  ...ranges(RULES.cgnat, ["100.64.0.0/10"]),
  ...ranges(RULES.multicast, ["224.0.0.0/4"]),
  ...ranges(RULES.broadcast, ["255.255.255.255/32"]),
  // IETF protocol assignments, documentation, 6to4 relays, benchmarking, the old class E: none
  // of them is a public service a run has business with.
  ...ranges(RULES.reserved, [
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "240.0.0.0/4",
  ]),
];

const IPV6_RULES: [Range, AddressRule][] = [
  ...ranges(RULES.metadata, ["fd00:ec2::254/128"]),
  ...ranges(RULES.unspecified, ["::/128"]),
  ...ranges(RULES.loopback, ["::1/128"]),
  // Unique local, and the deprecated site-local.
  ...ranges(RULES.private, ["fc00::/7", "fec0::/10"]),
  ...ranges(RULES.linkLocal, ["fe80::/10"]),
  ...ranges(RULES.multicast, ["ff00::/8"]),
  // Discard-only, documentation, Teredo (its client address is hidden), ORCHID.
  ...ranges(RULES.reserved, ["100::/64", "2001:db8::/32", "2001::/32", "2001:10::/28"]),
];

/** IPv6 forms that carry an IPv4 address, and where its four bytes sit. */
const EMBEDDING_FORMS: { cidr: Range; form: string; offset: number }[] = [
  { cidr: ipaddr.parseCIDR("::ffff:0:0/96"), form: "an IPv4-mapped", offset: 12 },
  // IPv4-compatible (deprecated); :: and ::1 are ruled above.
  { cidr: ipaddr.parseCIDR("::/96"), form: "an IPv4-compatible", offset: 12 },
  // NAT64: well-known and local-use prefixes.
  { cidr: ipaddr.parseCIDR("64:ff9b::/96"), form: "a NAT64", offset: 12 },
  { cidr: ipaddr.parseCIDR("64:ff9b:1::/48"), form: "a NAT64", offset: 12 },
  // SIIT (RFC 6145) and 6to4, whose IPv4 address follows the 2002: prefix.
  { cidr: ipaddr.parseCIDR("::ffff:0:0:0/96"), form: "an IPv4-translated", offset: 12 },
  { cidr: ipaddr.parseCIDR("2002::/16"), form: "a 6to4", offset: 2 },
];

/** Why the address may not be reached: the rule, and the reason in words. */
export interface Verdict {
  rule: AddressRule;
  /** The address as shown, e.g. `::ffff:7f00:1`. */
  address: string;
  /** What it is, e.g. `an IPv4-mapped form of 127.0.0.1, a loopback address`. */
  what: string;
  /** `<address> is <what>`. */
  reason: string;
}

function verdict(rule: AddressRule, address: string, what = rule.what): Verdict {
  return { rule, address, what, reason: `${address} is ${what}` };
}

/**
 * The rule that forbids `address` (an IPv4 or IPv6 literal in any form `ipaddr.js` parses), or
 * undefined when it is a public address. IPv6 forms that embed an IPv4 address are judged by it.
 */
export function forbiddenAddress(address: string): Verdict | undefined {
  let parsed: IPv4 | IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return verdict(RULES.invalid, address);
  }
  const shown = parsed.toString();
  if (parsed.kind() === "ipv4") {
    const found = matchRule(parsed, IPV4_RULES);
    return found && verdict(found, shown);
  }
  const v6 = parsed as IPv6;
  const direct = matchRule(v6, IPV6_RULES);
  if (direct !== undefined) return verdict(direct, shown);
  for (const { cidr, form, offset } of EMBEDDING_FORMS) {
    if (!v6.match(cidr)) continue;
    const bytes = v6.toByteArray().slice(offset, offset + 4);
    const inner = ipaddr.fromByteArray(bytes) as IPv4;
    const found = matchRule(inner, IPV4_RULES);
    if (found === undefined) return undefined;
    return verdict(found, shown, `${form} form of ${inner.toString()}, ${found.what}`);
  }
  return undefined;
}

function matchRule(address: IPv4 | IPv6, rules: [Range, AddressRule][]): AddressRule | undefined {
  for (const [range, found] of rules) {
    if (range[0].kind() === address.kind() && address.match(range)) return found;
  }
  return undefined;
}
