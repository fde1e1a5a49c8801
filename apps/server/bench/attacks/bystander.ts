// The bystander, a process of its own (forked by probe.ts): asks /healthz and its owner's run list
// every 20 ms, one request at a time, until told to stop, then sends back what it measured. Its own
// process, so that the attacker's clients do not delay its clock or its requests' handling.
import { quantile, sleep } from "../support/stats.js";

const [origin, key] = process.argv.slice(2) as [string, string];
const health: number[] = [];
const list: number[] = [];
let healthFailed = 0;
let listFailed = 0;
let asking = true;
process.on("message", () => {
  asking = false;
});

async function timed(url: string, headers: Record<string, string>): Promise<number | null> {
  const sent = performance.now();
  try {
    const reply = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    await reply.arrayBuffer();
    return reply.status === 200 ? performance.now() - sent : null;
  } catch {
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
  },
  () => process.exit(0),
);
