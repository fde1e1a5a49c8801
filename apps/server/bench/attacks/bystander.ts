// The bystander, a process of its own (forked by probe.ts): asks /healthz and its owner's run list
// every 20 ms, one request at a time, until told to stop, then sends back what it measured. Its own
// process, so that the attacker's clients do not delay its clock or its requests' handling.
import { quantile, sleep } from "../support/stats.js";

const [origin, key] = process.argv.slice(2) as [string, string];
const health: number[] = [];
const list: number[] = [];
let healthFailed = 0;
let listFailed = 0;
// Why requests failed ("429", "503", "TimeoutError", …): printed by the bench with the row.
const failures: Record<string, number> = {};
let asking = true;
process.on("message", () => {
  asking = false;
});

async function timed(url: string, headers: Record<string, string>): Promise<number | null> {
  const sent = performance.now();
  try {
    const reply = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    await reply.arrayBuffer();
    if (reply.status === 200) return performance.now() - sent;
    failures[reply.status] = (failures[reply.status] ?? 0) + 1;
    return null;
  } catch (error) {
    const name = error instanceof Error ? error.name : "error";
    failures[name] = (failures[name] ?? 0) + 1;
    return null;
  }
}

for (let turn = 0; asking; turn += 1) {
  if (turn % 2 === 0) {
    const ms = await timed(`${origin}/healthz`, {});
    if (ms === null) healthFailed += 1;
    else health.push(ms);
  } else {
    const ms = await timed(`${origin}/v1/run/list?limit=20`, { authorization: `Bearer ${key}` });
    if (ms === null) listFailed += 1;
    else list.push(ms);
  }
  await sleep(20);
}
process.send?.(
  {
    health: {
      p50: quantile(health, 0.5),
      p99: quantile(health, 0.99),
      max: Math.max(...health),
      failed: healthFailed,
    },
    list: { p50: quantile(list, 0.5), p99: quantile(list, 0.99), failed: listFailed },
    failures,
  },
  () => process.exit(0),
);
