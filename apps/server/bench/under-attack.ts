// `npm run bench` (after the others), or `npx tsx apps/server/bench/under-attack.ts [sqlite|postgres]
// [--quick] [--only=<words>]`: `skillrun serve` with a worker, attacked with what one key holder
// may send, while a bystander (another owner) asks /healthz and its run list. Targets: the
// bystander's /healthz p99 ≤ 100 ms during each attack, the server's RSS ≤ 400 MB, the server still
// up. Prints the table, writes it into BENCHMARKS.md (only when every attack ran on both flavours,
// without --quick) and exits 1 when a target is missed. `--only=<words>` runs only the attacks
// whose name contains them (e.g. `--only="40 MB"`, `--only=slowest`): to measure one change.
import { fileURLToPath } from "node:url";
import { parseSkillDefinition } from "@skillrun/engine";
import type { Flavour } from "../src/db/database-url.js";
import { skillRecordOf } from "../src/skills/import-skills.js";
import {
  bigLogStreams,
  idleListStreams,
  type Outcome,
  queueBacklog,
  requestFlood,
  slowSkillBodies,
  type Target,
} from "./attacks/attacks.js";
import { type Bystander, whileAttacked } from "./attacks/probe.js";
import { writeBetween } from "./report.js";
import { benchDatabase } from "./support/bench-database.js";
import { api, startServe } from "./support/skillrun.js";
import { sleep } from "./support/stats.js";

const quick = process.argv.includes("--quick");
const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
const ATTACK_MS = quick ? 3_000 : 10_000;
const CROWD = quick ? 20 : 120;
const HEALTH_P99_MS = 100;
const RSS_MB = 400;
const BENCHMARKS_MD = fileURLToPath(new URL("../../../BENCHMARKS.md", import.meta.url));

// About 40 MB of step log: 4,800 entries of 8,000 characters (a message holds at most 8 KB by
// default, RUN_EVENT_MESSAGE_MAX_BYTES).
const BIG_LOG_SKILL = `
id: skill_big_log
name: Big log
timeout: 120s
steps:
  - for_each:
      items: "{{ [1..4800] }}"
      steps:
        - log: "{{ $pad('', 8000, 'x') }}"
`;

// A run that never yields to its event loop: only its process's end stops it.
const LOOP_SKILL = `
id: skill_loop
name: Tight loop
timeout: 5s
steps:
  - repeat:
      max: 10000
      steps:
        - set: { n: "{{ $sum([1..999999]) }}" }
`;

// Two seconds of a worker's slot.
const NAP_SKILL = `
id: skill_nap
name: Nap
steps:
  - wait: 2s
`;

// What the bystander runs.
const QUICK_SKILL = `
id: skill_quick
name: Quick
steps:
  - set: { done: true }
`;

const ATTACKS: { name: string; run: (target: Target, ms: number) => Promise<Outcome> }[] = [
  {
    name: "1,000 clients reading the live stream of a run with a 40 MB step log",
    run: bigLogStreams,
  },
  { name: `50 idle run-list streams for each of ${CROWD} owners`, run: idleListStreams },
  { name: "4 clients PUTting the slowest skill body to check", run: slowSkillBodies },
  { name: "64 clients asking for a run list as fast as they are answered", run: requestFlood },
  { name: "20 queued runs of 2 s, then the bystander's run of one step", run: queueBacklog },
];

interface Row {
  flavour: Flavour;
  attack: string;
  outcome: Outcome;
  bystander: Bystander;
  up: boolean;
}

async function underAttack(flavour: Flavour): Promise<Row[]> {
  const database = await benchDatabase(flavour, [BIG_LOG_SKILL, LOOP_SKILL, NAP_SKILL]);
  const bystanderKey = (await database.repos.apiKeys.create("bystander")).key;
  await database.repos.skills.importAll("bystander", [
    skillRecordOf(parseSkillDefinition(QUICK_SKILL, "quick.yaml")),
  ]);
  // Each attack by an owner of its own, so that what one used of its rate limit does not
  // weaken the next; the first is the owner of the big-log run.
  const attackerKeys = [database.key];
  for (let n = 1; n < ATTACKS.length; n += 1) {
    const owner = `attacker_${n}`;
    await database.repos.skills.importAll(
      owner,
      [BIG_LOG_SKILL, LOOP_SKILL, NAP_SKILL].map((yaml) =>
        skillRecordOf(parseSkillDefinition(yaml, "attack.yaml")),
      ),
    );
    attackerKeys.push((await database.repos.apiKeys.create(owner)).key);
  }
  const manyKeys: string[] = [];
  for (let n = 0; n < CROWD; n += 1) {
    manyKeys.push((await database.repos.apiKeys.create(`crowd_${n}`)).key);
  }
  // The server as it ships: its default rate limit on (the benches' servers run without one).
  // Each attack meets a server started for it, so that its memory peak is its own, not what the
  // big log's run or the attack before left in the heap (V8 gives freed memory back only at a later
  // collection).
  const serve = () =>
    startServe({
      ...database.env,
      WORKER_CONCURRENCY: "2",
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "1200",
    });
  let server = await serve();
  const rows: Row[] = [];
  try {
    const origin = server.announced;
    const run = await api<{ id: string }>(origin, database.key, "/run/", {
      method: "POST",
      body: { skill_id: "skill_big_log", inputs: {} },
    });
    for (;;) {
      const { state } = await api<{ state: string | null }>(origin, database.key, `/run/${run.id}`);
      if (state === "finish") break;
      if (state !== null && state !== "play") throw new Error(`the big-log run ended ${state}`);
      await sleep(200);
    }
    const target: Target = {
      origin,
      key: database.key,
      manyKeys,
      bigLogRunId: run.id,
      bystanderKey,
    };
    for (const [n, attack] of ATTACKS.entries()) {
      if (only !== undefined && !attack.name.includes(only)) continue;
      await server.stop();
      server = await serve();
      console.log(`${flavour}: ${attack.name}…`);
      const { outcome, bystander } = await whileAttacked(
        server.announced,
        bystanderKey,
        server.child.pid as number,
        () =>
          attack.run(
            { ...target, origin: server.announced, key: attackerKeys[n] as string },
            ATTACK_MS,
          ),
      );
      const up = server.child.exitCode === null && server.child.signalCode === null;
      rows.push({ flavour, attack: attack.name, outcome, bystander, up });
      if (Object.keys(bystander.failures).length > 0) {
        console.log(`  the bystander's failed requests: ${JSON.stringify(bystander.failures)}`);
      }
      if (!up) break;
      await sleep(1_000);
    }
  } finally {
    await server.stop();
    await database.drop();
  }
  return rows;
}

const missed = (row: Row) =>
  !row.up || !(row.bystander.health.p99 <= HEALTH_P99_MS) || row.bystander.peakRssMb > RSS_MB;

function tableOf(rows: Row[]): string {
  const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : "none");
  const lines = [
    `| attack | flavour | the attacker got | /healthz p50 / p99 | bystander's run list p99 | server RSS peak | |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (row) =>
        `| ${row.attack} | ${row.flavour} | ${Object.entries(row.outcome)
          .map(([k, v]) => `${k} ${v.toLocaleString("en")}`)
          .join(", ")} | ${ms(row.bystander.health.p50)} / ${ms(row.bystander.health.p99)}${
          row.bystander.health.failed ? ` (${row.bystander.health.failed} failed)` : ""
        } | ${ms(row.bystander.list.p99)}${
          row.bystander.list.failed ? ` (${row.bystander.list.failed} failed)` : ""
        } | ${Math.round(row.bystander.peakRssMb)} MB | ${
          row.up ? (missed(row) ? "✗ missed" : "✓") : "✗ the server died"
        } |`,
    ),
  ];
  return lines.join("\n");
}

const flavours = (["sqlite", "postgres"] as const).filter(
  (flavour) =>
    !process.argv.some((arg) => arg === "sqlite" || arg === "postgres") ||
    process.argv.includes(flavour),
);
const rows: Row[] = [];
for (const flavour of flavours) rows.push(...(await underAttack(flavour)));
const table = tableOf(rows);
console.log(`\n${table}\n`);
if (!quick && only === undefined && flavours.length === 2) {
  writeBetween(
    BENCHMARKS_MD,
    "attacks",
    `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; each attack ${ATTACK_MS / 1000} s. Targets: /healthz p99 ≤ ${HEALTH_P99_MS} ms, server RSS ≤ ${RSS_MB} MB, the server up.\n\n${table}`,
  );
  console.log(`written to ${BENCHMARKS_MD}`);
}
process.exitCode = rows.some(missed) ? 1 : 0;
