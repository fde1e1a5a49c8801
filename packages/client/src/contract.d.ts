// The types generated from openapi.yaml. Here they come from the workspace's @skillrun/contract;
// the build (scripts/build.mjs) replaces this file in dist with a copy of that package's types,
// so the published client carries them and nobody needs the private contract package.
export type { $defs, components, operations, paths, webhooks } from "@skillrun/contract";
