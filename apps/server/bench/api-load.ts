// The API under load, against its ceiling (a bare Express 5 app answering the same RunSession)
// and the floor of the libraries it is built on (the same with its access log and validator).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Flavour } from "../src/db/database-url.js";
import { createTestDatabase } from "../src/test-support/test-database.js";
import { benchDatabase } from "./support/bench-database.js";
import { type LoadResult, load } from "./support/load.js";
import { type BenchProcess, rssMb, startNode, startProcess } from "./support/processes.js";
import { api, startServe } from "./support/skillrun.js";
import { ONE_SET_SKILL } from "./support/skills.js";

const CEILING = fileURLToPath(new URL("./support/ceiling-server.mjs", import.meta.url));
const STACK_FLOOR = fileURLToPath(new URL("./support/stack-floor-server.mjs", import.meta.url));
const FASTAPI = fileURLToPath(new URL("./support/fastapi-reference.py", import.meta.url));

export interface ApiLoadFigures {
  ceiling: LoadResult;
  /** Express 5 with Skillrun's access log and validator, no database: see stack-floor-server.mjs. */
  stackFloor: LoadResult;
  /** The same answering `GET /run/list?limit=20` with the page the server answers. */
  pageFloor: LoadResult;
  get: LoadResult;
  list: LoadResult;
  post: LoadResult;
  /** The origin's stack (FastAPI, uvicorn) serving the same GET and POST on the same database. */
  fastapi: { get: LoadResult; post: LoadResult };
  /** The server's resident set at the end of the load, MB. */
  rssMb: number;
}

export async function measureApiLoad(flavour: Flavour, seconds: number): Promise<ApiLoadFigures> {
  const database = await benchDatabase(flavour, [ONE_SET_SKILL]);
  // The API alone: no worker in the server, so nothing executes the runs POST queues.
  const server = await startServe({ ...database.env, WORKER_CONCURRENCY: "0" });
  const base = server.announced;
  const headers = { authorization: `Bearer ${database.key}` };
  try {
    const start = (n: number) =>
      api<{ id: string }>(base, database.key, "/run/", {
        method: "POST",
        body: { skill_id: "skill_one_set", inputs: { n } },
      });
    // More than a page of runs stored.
    for (let i = 0; i < 25; i += 1) await start(i);
    const run = await start(99);
    const body = await api<unknown>(base, database.key, `/run/${run.id}`);
    const page = await api<unknown>(base, database.key, "/run/list?limit=20");
    const alone = async (
      script: string,
      withKey: boolean,
      path = `/run/${run.id}`,
      answer = body,
    ): Promise<LoadResult> => {
      const other = await startNode([script, JSON.stringify(answer)], /listening on (\S+)/);
      try {
        return await load(`${other.announced}/v1${path}`, { seconds, ...(withKey && { headers }) });
      } finally {
        await other.stop();
      }
    };
    const ceiling = await alone(CEILING, false);
    const stackFloor = await alone(STACK_FLOOR, true);
    // The validator takes /run/list for listRuns; the floor's one route answers it with the page.
    const pageFloor = await alone(STACK_FLOOR, true, "/run/list?limit=20", page);
    const get = await load(`${base}/v1/run/${run.id}`, { headers, seconds });
    const list = await load(`${base}/v1/run/list?limit=20`, { headers, seconds });
    const post = await load(`${base}/v1/run/`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ skill_id: "skill_one_set", inputs: { n: 3 } }),
      seconds,
    });
    const rss = await rssMb(server.child.pid as number);
    const fastapi = await fastapiLoad(flavour, database.key, seconds);
    return { ceiling, stackFloor, pageFloor, get, list, post, fastapi, rssMb: rss };
  } finally {
    await server.stop();
    await database.drop();
  }
}

/**
 * The same GET and POST load against the FastAPI reference, on a database of its own of the same
 * flavour: a SQLite file, or a database on the same PostgreSQL server (docs/decisions/0074).
 */
async function fastapiLoad(
  flavour: Flavour,
  key: string,
  seconds: number,
): Promise<{ get: LoadResult; post: LoadResult }> {
  const dir = mkdtempSync(join(tmpdir(), "skillrun-fastapi-"));
  const database = flavour === "postgres" ? await createTestDatabase("postgres") : undefined;
  let reference: BenchProcess | undefined;
  try {
    reference = await startProcess(
      // Debian's python3-fastapi, python3-uvicorn and python3-psycopg2 live beside Debian's
      // Python, which another python3 on PATH (pyenv's, say) does not see.
      process.env.FASTAPI_PYTHON ?? "/usr/bin/python3",
      [FASTAPI, database?.url ?? join(dir, "runs.db"), key],
      /listening on (\S+)/,
    );
    const headers = { authorization: `Bearer ${key}` };
    const origin = reference.announced;
    const post = (n: number) =>
      fetch(`${origin}/v1/run/`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ skill_id: "skill_one_set", inputs: { n } }),
      }).then(async (answer) => (await answer.json()) as { id: string });
    for (let i = 0; i < 25; i += 1) await post(i);
    const run = await post(99);
    return {
      get: await load(`${origin}/v1/run/${run.id}`, { headers, seconds }),
      post: await load(`${origin}/v1/run/`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ skill_id: "skill_one_set", inputs: { n: 3 } }),
        seconds,
      }),
    };
  } finally {
    await reference?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
