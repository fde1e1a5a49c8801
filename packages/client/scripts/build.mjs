// Builds the publishable package into dist/: compiles src/, then puts the contract's generated
// types beside the output as dist/contract.d.ts. @skillrun/contract is private and never
// published, so the client's declarations must not import it: in the sources src/contract.d.ts
// re-exports it from the workspace; in dist its place is taken by a copy of the types file.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(packageDir, "dist");
const require = createRequire(import.meta.url);

// From scratch, so that no file of an earlier build ends up in the package.
rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"],
  {
    cwd: packageDir,
    stdio: "inherit",
  },
);

const contractManifest = require.resolve("@skillrun/contract/package.json");
const { types } = JSON.parse(readFileSync(contractManifest, "utf8"));
copyFileSync(join(dirname(contractManifest), types), join(dist, "contract.d.ts"));

const leaks = readdirSync(dist, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith(".d.ts"))
  .filter((file) => readFileSync(join(dist, file), "utf8").includes("@skillrun/contract"));
if (leaks.length > 0) {
  throw new Error(`dist declarations still import @skillrun/contract: ${leaks.join(", ")}`);
}
