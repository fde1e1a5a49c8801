import type { LookupAddress } from "node:dns";

/** Resolves a name to every address it has, as `dns.lookup(name, { all: true })` does. */
export type Resolver = (name: string) => Promise<LookupAddress[]>;

/**
 * Where a run may connect (http steps, the browser, later webhooks). By default nothing private:
 * loopback, private, link-local, CGNAT, multicast, unspecified, reserved and cloud metadata
 * addresses are refused, in every IPv4 and IPv6 form.
 */
export interface NetworkPolicy {
  /** Lets private networks through (cloud metadata addresses stay refused). False by default. */
  allowPrivate?: boolean;
  /**
   * Let through although private: names (`internal.example`), addresses (`10.1.2.3`, `[::1]`)
   * and CIDR ranges (`10.0.0.0/8`), each maybe with a port (`127.0.0.1:8080`). A name entry lets
   * through whatever the name resolves to.
   */
  allowedHosts?: readonly string[];
  /** Added to every refusal, to tell the operator how to allow it, e.g. which setting. */
  hint?: string;
  /** How names are resolved; `dns.lookup` with every address by default. */
  resolve?: Resolver;
}

/** The policy a run gets when its caller says nothing: refuse everything private. */
export const DEFAULT_NETWORK_POLICY: NetworkPolicy = {};
