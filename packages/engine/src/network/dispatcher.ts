import { isIP } from "node:net";
import { Agent, buildConnector } from "undici";
import type { NetworkGuard } from "./guard.js";

/**
 * An undici dispatcher for `fetch` that connects only where the guard allows: each connection
 * (every redirect hop included) resolves its host through the guard and connects to the very
 * address that was judged, so a DNS answer that changes between a check and the connection
 * (rebinding) cannot get through. TLS still verifies the certificate for the name asked for.
 */
export function guardedDispatcher(guard: NetworkGuard): Agent {
  const connect = buildConnector({});
  return new Agent({
    connect(options, callback) {
      const { protocol } = options;
      // undici gives IPv6 literals in brackets.
      const hostname = options.hostname.replace(/^\[(.*)\]$/, "$1");
      const port = Number(options.port) || (protocol === "https:" ? 443 : 80);
      guard.resolve(hostname, port).then(
        ([first]) => {
          // resolve() gives at least one address or throws.
          const address = (first as { address: string }).address;
          const servername =
            options.servername ??
            (protocol === "https:" && isIP(hostname) === 0 ? hostname : undefined);
          connect({ ...options, hostname: address, ...(servername && { servername }) }, callback);
        },
        (error: Error) => callback(error, null),
      );
    },
  });
}
