import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { rssMb } from "../support/processes.js";
import { sleep } from "../support/stats.js";

/** What a bystander saw while an attack ran: its requests' latencies and the server's memory. */
export interface Bystander {
  /** /healthz, ms. */
  health: { p50: number; p99: number; max: number; failed: number };
  /** Another owner's `GET /v1/run/list?limit=20`, ms. */
  list: { p50: number; p99: number; failed: number };
  /** Why the failed requests failed: a status code or an error's name, and how often. */
  failures: Record<string, number>;
  /** The server process's highest resident set size while the attack ran, MB. */
  peakRssMb: number;
}

/**
 * Runs `attack` while a bystander process (bystander.ts) asks /healthz and its own run list every
 * 20 ms, one request at a time (as a load balancer's probe and a user would), and the server's
 * RSS is sampled every 100 ms. A request that fails or answers other than 200 counts as failed,
 * not as a latency.
 */
export async function whileAttacked<T>(
  origin: string,
  bystanderKey: string,
  serverPid: number,
  attack: () => Promise<T>,
): Promise<{ outcome: T; bystander: Bystander }> {
  // Forked with this process's flags: under tsx, its loader too.
  const child = fork(fileURLToPath(new URL("./bystander.ts", import.meta.url)), [
    origin,
    bystanderKey,
  ]);
  const seen = new Promise<Omit<Bystander, "peakRssMb">>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Omit<Bystander, "peakRssMb">));
    child.once("exit", (code) => reject(new Error(`the bystander exited (${code})`)));
  });
  // Killed below when the attack fails: the attack's error is the one to report.
  seen.catch(() => undefined);
  let peakRssMb = 0;
  let attacking = true;
  const sampling = (async () => {
    while (attacking) {
      peakRssMb = Math.max(peakRssMb, await rssMb(serverPid).catch(() => 0));
      await sleep(100);
    }
  })();
  try {
    // Its first requests before the attack's.
    await sleep(500);
    const outcome = await attack();
    child.send("stop");
    return { outcome, bystander: { ...(await seen), peakRssMb } };
  } finally {
    attacking = false;
    await sampling;
    if (child.exitCode === null) child.kill();
  }
}
