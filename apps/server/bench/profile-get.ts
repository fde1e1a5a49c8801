import { rmSync } from "node:fs";
import { builtCli } from "../src/test-support/built-cli.js";
import { benchDatabase } from "./support/bench-database.js";
import { load } from "./support/load.js";
import { startNode } from "./support/processes.js";
import { api } from "./support/skillrun.js";
import { ONE_SET_SKILL } from "./support/skills.js";

const database = await benchDatabase((process.env.FLAVOUR as "sqlite") ?? "sqlite", [
  ONE_SET_SKILL,
]);
rmSync("/tmp/prof/out", { recursive: true, force: true });
const server = await startNode(
  ["--cpu-prof", "--cpu-prof-dir=/tmp/prof/out", builtCli(), "serve"],
  /Skillrun is listening on (http:\/\/\S+)/,
  { ...database.env, PORT: "0", WORKER_CONCURRENCY: "0" },
);
const base = server.announced;
const headers = { authorization: `Bearer ${database.key}` };
const run = await api<{ id: string }>(base, database.key, "/run/", {
  method: "POST",
  body: { skill_id: "skill_one_set", inputs: { n: 1 } },
});
const which = process.env.WHICH ?? "get";
const url =
  which === "get"
    ? `${base}/v1/run/${run.id}`
    : which === "list"
      ? `${base}/v1/run/list?limit=20`
      : `${base}/v1/run/`;
const r = await load(url, {
  headers: { ...headers, "content-type": "application/json" },
  seconds: 5,
  ...(which === "post" && {
    method: "POST",
    body: JSON.stringify({ skill_id: "skill_one_set", inputs: { n: 3 } }),
  }),
});
console.log(r);
await server.stop();
await database.drop();
