import type { NetworkPolicy } from "@skillrun/engine";
import type { Config } from "./config.js";

/** What a refusal tells the operator to change. */
const HINT =
  "set ALLOW_PRIVATE_NETWORKS=true to allow private networks, or list the host in ALLOWED_PRIVATE_HOSTS";

/** Where runs may connect, as the configuration says; `alsoAllowed` adds to the allow-list. */
export function networkPolicyOf(
  config: Config,
  alsoAllowed: readonly string[] = [],
): NetworkPolicy {
  return {
    allowPrivate: config.ALLOW_PRIVATE_NETWORKS,
    allowedHosts: [...config.ALLOWED_PRIVATE_HOSTS, ...alsoAllowed],
    hint: HINT,
  };
}

/**
 * The addresses of this server's own port (the one bound, PORT=0 included), for the demo: its
 * skill drives the demo shop the server serves at /demo/. Only that port, under the names a user
 * would type for it.
 */
export function ownAddresses(config: Config, port: number): string[] {
  const host = config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
  // Listening everywhere: the loopback addresses are this server's too.
  if (["0.0.0.0", "::", "[::]"].includes(config.HOST)) {
    return [`127.0.0.1:${port}`, `[::1]:${port}`, `localhost:${port}`];
  }
  const loopback = ["127.0.0.1", "::1", "localhost"].includes(config.HOST);
  return loopback ? [`${host}:${port}`, `localhost:${port}`] : [`${host}:${port}`];
}
