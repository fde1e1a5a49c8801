import { createRequire } from "node:module";
import type * as IpAddr from "ipaddr.js";

/**
 * ipaddr.js (CommonJS, `export =`) for this ESM package: Node exposes it only as a default
 * export, which TypeScript accepts only with allowSyntheticDefaultImports.
 */
export const ipaddr = createRequire(import.meta.url)("ipaddr.js") as typeof IpAddr;
export type IPv4 = IpAddr.IPv4;
export type IPv6 = IpAddr.IPv6;
