// Profiles the server under one operation's load: `tsx bench/profile-api.ts get|list|post
// [sqlite|postgres]` loads it for 5 s and leaves the server's CPU profile (node --cpu-prof) in a
// temporary folder it prints, to open in Chrome's DevTools or any .cpuprofile viewer.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Flavour } from "../src/db/database-url.js";
import { benchDatabase } from "./support/bench-database.js";
import { load } from "./support/load.js";
import { api, startServe } from "./support/skillrun.js";
import { ONE_SET_SKILL } from "./support/skills.js";

const operation = process.argv[2] ?? "get";
const flavour = (process.argv[3] ?? "sqlite") as Flavour;
const dir = mkdtempSync(join(tmpdir(), "skillrun-profile-"));
process.env.BENCH_CPU_PROF = dir;
const database = await benchDatabase(flavour, [ONE_SET_SKILL]);
const server = await startServe({ ...database.env, WORKER_CONCURRENCY: "0" });
try {
  const body = JSON.stringify({ skill_id: "skill_one_set", inputs: { n: 1 } });
  const start = () =>
    api<{ id: string }>(server.announced, database.key, "/run/", {
      method: "POST",
      body: JSON.parse(body),
    });
  // More than a page of runs, as the bench has.
  for (let i = 0; i < 26; i += 1) await start();
  const run = await start();
  const headers = { authorization: `Bearer ${database.key}`, "content-type": "application/json" };
  const base = `${server.announced}/v1`;
  const result =
    operation === "post"
      ? await load(`${base}/run/`, { method: "POST", headers, body, seconds: 5 })
      : await load(operation === "list" ? `${base}/run/list?limit=20` : `${base}/run/${run.id}`, {
          headers,
          seconds: 5,
        });
  console.log(result);
} finally {
  await server.stop();
  await database.drop();
}
console.log(`CPU profile of the server: ${dir}`);
