import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { type AddressRule, forbiddenAddress, RULES } from "./address-rules.js";
import { parseAllowList } from "./allow-list.js";
import { type Host, normaliseHost } from "./host.js";
import type { NetworkPolicy, Resolver } from "./policy.js";

/** A connection the network policy refuses; the message names the address and the rule. */
export class NetworkRefused extends Error {
  override name = "NetworkRefused";
  constructor(
    readonly rule: AddressRule,
    reason: string,
  ) {
    super(reason);
  }
}

/** Names that are private whatever DNS says of them. */
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);

/** The policy made ready to judge connections. */
export interface NetworkGuard {
  /**
   * Resolves `host` and gives the addresses a connection to `port` may use, in DNS order; throws
   * NetworkRefused when any address it resolves to is forbidden (one bad answer refuses all, so a
   * name that mixes public and private answers cannot be raced).
   */
  resolve(host: string, port: number): Promise<LookupAddress[]>;
  /** Throws NetworkRefused unless `url` (http or https) may be fetched. */
  checkUrl(url: string): Promise<void>;
}

/** Builds the guard of a policy; throws when its allow-list has an entry that is not one. */
export function createNetworkGuard(policy: NetworkPolicy): NetworkGuard {
  const allowList = parseAllowList(policy.allowedHosts ?? []);
  const resolver: Resolver =
    policy.resolve ?? ((name) => lookup(name, { all: true, verbatim: true }));
  const suffix = policy.hint === undefined ? "" : ` (${policy.hint})`;
  const refuse = (rule: AddressRule, reason: string) => new NetworkRefused(rule, reason + suffix);

  /** The verdict on one address, the allow-list and allowPrivate taken into account. */
  function judge(
    host: Host,
    address: string,
    port: number,
  ): { rule: AddressRule; reason: string } | undefined {
    const verdict = forbiddenAddress(address);
    if (verdict === undefined) return undefined;
    const name = host.kind === "name" ? host.name : undefined;
    if (allowList.allows({ ...(name !== undefined && { name }), address, port })) return undefined;
    if (policy.allowPrivate === true && verdict.rule !== RULES.metadata) return undefined;
    const reason =
      name === undefined
        ? verdict.reason
        : `${name} resolves to ${verdict.address}, ${verdict.what}`;
    return { rule: verdict.rule, reason: reason + onlyOtherPorts(name, address, port) };
  }

  /**
   * When the allow-list lets this host through on other ports only, the refusal says so: the
   * port is what was refused, not the host the operator allowed.
   */
  function onlyOtherPorts(name: string | undefined, address: string, port: number): string {
    const ports = allowList.onlyPortsFor({ ...(name !== undefined && { name }), address });
    if (ports.length === 0) return "";
    return `; the allowed hosts let it through on port ${ports.join(", ")} only, not ${port}`;
  }

  async function resolve(hostText: string, port: number): Promise<LookupAddress[]> {
    const host = normaliseHost(hostText);
    if (host === undefined) {
      throw refuse(RULES.invalid, `${JSON.stringify(hostText)} is ${RULES.invalid.what}`);
    }
    if (host.kind === "ip") {
      const verdict = judge(host, host.address, port);
      if (verdict !== undefined) throw refuse(verdict.rule, verdict.reason);
      return [{ address: host.address, family: host.address.includes(":") ? 6 : 4 }];
    }
    const named = namedRule(host.name);
    if (named !== undefined && !allowList.allows({ name: host.name, address: "", port })) {
      const allowed = policy.allowPrivate === true && named !== RULES.metadata;
      if (!allowed) {
        throw refuse(named, `${host.name} is ${named.what}${onlyOtherPorts(host.name, "", port)}`);
      }
    }
    const addresses = await resolver(host.name);
    if (addresses.length === 0) throw new Error(`${host.name} has no address`);
    for (const { address } of addresses) {
      const verdict = judge(host, address, port);
      if (verdict !== undefined) throw refuse(verdict.rule, verdict.reason);
    }
    return addresses;
  }

  return {
    resolve,
    async checkUrl(url) {
      const parsed = new URL(url);
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
        throw refuse(RULES.invalid, `${parsed.protocol} is not http or https`);
      }
      await resolve(parsed.hostname, portOf(parsed));
    },
  };
}

/** The port a URL connects to: its own, else its scheme's. */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" || url.protocol === "wss:" ? 443 : 80;
}

/** Names refused before any DNS: localhost (RFC 6761) and the cloud metadata services. */
function namedRule(name: string): AddressRule | undefined {
  if (name === "localhost" || name.endsWith(".localhost")) return RULES.loopback;
  if (METADATA_NAMES.has(name)) return RULES.metadata;
  return undefined;
}
