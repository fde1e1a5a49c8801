// `npm run bench`: every benchmark in turn. One that misses a target (exit 1) does not stop the
// others, whose figures are as worth having; the exit code is 1 when any of them missed or failed.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BENCHES = [
  "main.ts",
  "claim-latency.ts",
  "hostile-runs.ts",
  "run-host-flavours.ts",
  "under-attack.ts",
  "browser-runs.ts",
];

const failed: string[] = [];
for (const bench of BENCHES) {
  const file = fileURLToPath(new URL(`./${bench}`, import.meta.url));
  // Under this process's flags: tsx's loader too.
  const { status } = spawnSync(process.execPath, [...process.execArgv, file], { stdio: "inherit" });
  if (status !== 0) failed.push(`${bench} (exit ${status})`);
}
if (failed.length > 0) {
  console.log(`\nmissed a target or failed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
