import { request } from "node:http";
import { sleep } from "../support/stats.js";

/** Where an attack is aimed, and with which keys. */
export interface Target {
  origin: string;
  /** The attacker's key. */
  key: string;
  /** Keys of owners of the attacker's making, for the attacks spread over many owners. */
  manyKeys: string[];
  /** A run of the attacker's whose step log is large (BIG_LOG_SKILL). */
  bigLogRunId: string;
  /** The bystander's key: its owner has skill_quick too. */
  bystanderKey: string;
}

/** What the attacker got. */
export type Outcome = Record<string, number>;

/**
 * Opens a GET stream and reads it to its end (or until `holdMs`, when given, then drops it).
 * Resolves with the status and the bytes read; a connection error is status 0.
 */
function stream(
  url: string,
  key: string,
  holdMs?: number,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      const done = () => resolve({ status: res.statusCode ?? 0, bytes });
      res.once("end", done);
      res.once("error", done);
      res.once("close", done);
      if (holdMs !== undefined) setTimeout(() => req.destroy(), holdMs);
    });
    req.once("error", () => resolve({ status: 0, bytes: 0 }));
    req.end();
  });
}

/**
 * 1,000 clients each reading the live stream of one run whose step log is large, over and over
 * for `ms`: every stream the server accepts reads the whole log.
 */
export async function bigLogStreams(target: Target, ms: number): Promise<Outcome> {
  const url = `${target.origin}/v1/run/${target.bigLogRunId}/events/stream`;
  const outcome = { served: 0, refused429: 0, other: 0, megabytes: 0 };
  const until = Date.now() + ms;
  const client = async () => {
    while (Date.now() < until) {
      const { status, bytes } = await stream(url, target.key);
      outcome.megabytes += bytes / 1e6;
      if (status === 200) outcome.served += 1;
      else if (status === 429) {
        outcome.refused429 += 1;
        // What a client honouring Retry-After would do, shortened: the attack keeps knocking.
        await sleep(100);
      } else outcome.other += 1;
    }
  };
  await Promise.all(Array.from({ length: 1_000 }, client));
  outcome.megabytes = Math.round(outcome.megabytes);
  return outcome;
}

/** 50 idle `GET /v1/run/stream` for each of the many owners, all held open for `ms`. */
export async function idleListStreams(target: Target, ms: number): Promise<Outcome> {
  const url = `${target.origin}/v1/run/stream`;
  const outcome = { held: 0, refused429: 0, other: 0 };
  await Promise.all(
    target.manyKeys.flatMap((key) =>
      Array.from({ length: 50 }, async () => {
        const { status } = await stream(url, key, ms);
        if (status === 200) outcome.held += 1;
        else if (status === 429) outcome.refused429 += 1;
        else outcome.other += 1;
      }),
    ),
  );
  return outcome;
}

/**
 * The slowest skill body to check that the limits allow: 100 inputs with 128-character names
 * and 100 references to 128-character names that are not there (each wanting a "did you mean"),
 * PUT by 4 clients at once, over and over for `ms`. Meanwhile a run that never yields (a tight
 * loop, LOOP_SKILL) meets its 5 s time limit: how long it took tells whether the server's timers
 * kept time.
 */
export async function slowSkillBodies(target: Target, ms: number): Promise<Outcome> {
  const headers = { authorization: `Bearer ${target.key}`, "content-type": "application/json" };
  const loop = (await (
    await fetch(`${target.origin}/v1/run/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ skill_id: "skill_loop", inputs: {} }),
    })
  ).json()) as { id: string };
  const name = (n: number, c: string) => `${c}${String(n).padStart(3, "0")}`.padEnd(128, c);
  const inputs = Array.from({ length: 100 }, (_, n) => ({
    json_key: name(n, "a"),
    data_type: "string",
  }));
  const steps = Array.from({ length: 100 }, (_, n) => ({
    log: `{{ inputs.${name(n, "b")} }}`,
  }));
  const body = JSON.stringify({ id: "skill_big", name: "Big", inputs, steps });
  const outcome = { answered422: 0, other: 0, slowestMs: 0 };
  const until = Date.now() + ms;
  const client = async () => {
    while (Date.now() < until) {
      const sent = performance.now();
      const reply = await fetch(`${target.origin}/v1/skill/skill_big`, {
        method: "PUT",
        headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
        body,
      });
      await reply.arrayBuffer();
      outcome.slowestMs = Math.max(outcome.slowestMs, Math.round(performance.now() - sent));
      if (reply.status === 422) outcome.answered422 += 1;
      else outcome.other += 1;
    }
  };
  await Promise.all(Array.from({ length: 4 }, client));
  for (;;) {
    const run = (await (await fetch(`${target.origin}/v1/run/${loop.id}`, { headers })).json()) as {
      state: string | null;
      start_time: string;
      end_time: string | null;
    };
    if (run.end_time !== null) {
      if (run.state !== "timeout") throw new Error(`the loop run ended ${run.state}`);
      const seconds = (Date.parse(run.end_time) - Date.parse(run.start_time)) / 1000;
      return { ...outcome, loopRunEndedAfterSeconds: Math.round(seconds * 10) / 10 };
    }
    await sleep(100);
  }
}

/** 64 clients asking for the attacker's run list as fast as the server answers, for `ms`. */
export async function requestFlood(target: Target, ms: number): Promise<Outcome> {
  const outcome = { answered200: 0, refused429: 0, other: 0 };
  const until = Date.now() + ms;
  const client = async () => {
    while (Date.now() < until) {
      const reply = await fetch(`${target.origin}/v1/run/list?limit=20`, {
        headers: { authorization: `Bearer ${target.key}` },
      });
      await reply.arrayBuffer();
      if (reply.status === 200) outcome.answered200 += 1;
      else if (reply.status === 429) outcome.refused429 += 1;
      else outcome.other += 1;
    }
  };
  await Promise.all(Array.from({ length: 64 }, client));
  return outcome;
}

/**
 * The attacker queues 20 runs of 2 s (NAP_SKILL) on a server with 2 slots, then the bystander
 * starts one run of a step: how long it waits behind the attacker's backlog. The attacker's
 * runs are cancelled afterwards.
 */
export async function queueBacklog(target: Target): Promise<Outcome> {
  const start = async (key: string, skill_id: string) => {
    const reply = await fetch(`${target.origin}/v1/run/`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ skill_id, inputs: {} }),
    });
    if (reply.status !== 200) throw new Error(`POST /v1/run/ answered ${reply.status}`);
    return ((await reply.json()) as { id: string }).id;
  };
  const backlog: string[] = [];
  for (let n = 0; n < 20; n += 1) backlog.push(await start(target.key, "skill_nap"));
  const sent = Date.now();
  const id = await start(target.bystanderKey, "skill_quick");
  for (;;) {
    const reply = await fetch(`${target.origin}/v1/run/${id}`, {
      headers: { authorization: `Bearer ${target.bystanderKey}` },
    });
    const run = (await reply.json()) as { state: string | null; end_time: string | null };
    if (run.end_time !== null) {
      if (run.state !== "finish") throw new Error(`the bystander's run ended ${run.state}`);
      break;
    }
    await sleep(50);
  }
  const seconds = (Date.now() - sent) / 1000;
  for (const runId of backlog) {
    await fetch(`${target.origin}/v1/run/${runId}/cancel`, {
      method: "POST",
      headers: { authorization: `Bearer ${target.key}` },
    });
  }
  return { queuedByAttacker: backlog.length, bystanderRunEndedAfterSeconds: seconds };
}
