import type { NetworkPolicy } from "../policy.js";

/**
 * The policy of tests whose fixture servers listen on loopback, which the default policy refuses:
 * private networks allowed, as `ALLOW_PRIVATE_NETWORKS=true` does.
 */
export const LOCAL_TEST_NETWORK: NetworkPolicy = { allowPrivate: true };
