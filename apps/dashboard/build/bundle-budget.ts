import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** The most JavaScript the dashboard may send, gzipped, over all its chunks. */
export const JS_BUDGET_GZIP_BYTES = 300 * 1024;

/** One file of a build: its name and its bytes (a chunk's code or an asset's source). */
export interface BuiltFile {
  fileName: string;
  bytes: string | Uint8Array;
}

/**
 * The gzipped size of the build's JavaScript; throws, naming the files and their sizes, when it
 * is past `budget`, so that a build that grew too heavy fails instead of shipping.
 */
export function checkJsBudget(files: BuiltFile[], budget = JS_BUDGET_GZIP_BYTES): number {
  const sizes = files
    .filter((file) => file.fileName.endsWith(".js"))
    .map((file) => ({ name: file.fileName, gzip: gzipSync(file.bytes).length }));
  const total = sizes.reduce((sum, file) => sum + file.gzip, 0);
  if (total > budget) {
    const list = sizes.map((file) => `${file.name} ${file.gzip} B`).join(", ");
    throw new Error(
      `the dashboard's JavaScript is ${total} bytes gzipped, past its budget of ${budget} (${list}): see docs/dashboard.md`,
    );
  }
  return total;
}

/** Fails `vite build` when the bundle's JavaScript is past JS_BUDGET_GZIP_BYTES gzipped. */
export function bundleBudget(): Plugin {
  return {
    name: "skillrun-bundle-budget",
    apply: "build",
    generateBundle(_options, bundle) {
      checkJsBudget(
        Object.values(bundle).map((file) => ({
          fileName: file.fileName,
          bytes: file.type === "chunk" ? file.code : file.source,
        })),
      );
    },
  };
}
