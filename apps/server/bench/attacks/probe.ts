import { rssMb } from "../support/processes.js";
import { quantile, sleep } from "../support/stats.js";

/** What a bystander saw while an attack ran: its requests' latencies and the server's memory. */
export interface Bystander {
  /** /healthz, ms. */
  health: { p50: number; p99: number; max: number; failed: number };
  /** Another owner's `GET /v1/run/list?limit=20`, ms. */
  list: { p50: number; p99: number; failed: number };
  /** The server process's highest resident set size while the attack ran, MB. */
  peakRssMb: number;
}

/**
 * Runs `attack` while a bystander asks /healthz and its own run list every 20 ms, one request at
 * a time (as a load balancer's probe and a user would), and the server's RSS is sampled every
 * 100 ms. A request that fails or answers other than 200 counts as failed, not as a latency.
 */
export async function whileAttacked<T>(
  origin: string,
  bystanderKey: string,
  serverPid: number,
  attack: () => Promise<T>,
): Promise<{ outcome: T; bystander: Bystander }> {
  const health: number[] = [];
  const list: number[] = [];
  let healthFailed = 0;
  let listFailed = 0;
  let peakRssMb = 0;
  let attacking = true;

  const timed = async (url: string, headers: Record<string, string>) => {
    const sent = performance.now();
    try {
      const reply = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
      await reply.arrayBuffer();
      return reply.status === 200 ? performance.now() - sent : null;
    } catch {
      return null;
    }
  };
  const asking = (async () => {
    for (let turn = 0; attacking; turn += 1) {
      if (turn % 2 === 0) {
        const ms = await timed(`${origin}/healthz`, {});
        if (ms === null) healthFailed += 1;
        else health.push(ms);
      } else {
        const ms = await timed(`${origin}/v1/run/list?limit=20`, {
          authorization: `Bearer ${bystanderKey}`,
        });
        if (ms === null) listFailed += 1;
        else list.push(ms);
      }
      await sleep(20);
    }
  })();
  const sampling = (async () => {
    while (attacking) {
      peakRssMb = Math.max(peakRssMb, await rssMb(serverPid).catch(() => 0));
      await sleep(100);
    }
  })();
  try {
    const outcome = await attack();
    return {
      outcome,
      bystander: {
        health: {
          p50: quantile(health, 0.5),
          p99: quantile(health, 0.99),
          max: Math.max(...health),
          failed: healthFailed,
        },
        list: { p50: quantile(list, 0.5), p99: quantile(list, 0.99), failed: listFailed },
        peakRssMb,
      },
    };
  } finally {
    attacking = false;
    await Promise.all([asking, sampling]);
  }
}
