import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "@skillrun/server/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The package as a user gets it: `npm pack`ed, installed from the tarball into a project outside
// the repository (no workspace link, no hoisted node_modules above it), its dependencies from the
// registry. Asynchronous child processes throughout: the server answering them lives in this one.
const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = resolve(packageDir, "../..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

// npm hands its own configuration to scripts as npm_* variables (workspace, prefix, …); the
// consumer's npm must see none of it, as in a user's shell.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")),
);

const GREET = `
id: skill_greet
name: Greet
inputs:
  - { json_key: name, data_type: string }
steps:
  - set: { greeting: "Hello, {{ inputs.name }}!" }
`;

let consumerDir: string;
let installed: string;
let server: TestServer;

beforeAll(async () => {
  consumerDir = mkdtempSync(join(tmpdir(), "skillrun-client-consumer-"));
  // prepack builds dist from scratch, so a stale build cannot pass for the current sources.
  await run("npm", ["pack", "--pack-destination", consumerDir], { cwd: packageDir, env: cleanEnv });
  const tarball = readdirSync(consumerDir).find((file) => file.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${consumerDir}`);
  writeFileSync(
    join(consumerDir, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
  );
  await run(
    "npm",
    ["install", `./${tarball}`, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
    { cwd: consumerDir, env: cleanEnv },
  );
  installed = join(consumerDir, "node_modules", "@skillrun", "client");
  server = await startTestServer({ worker: { concurrency: 1 } });
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (consumerDir) rmSync(consumerDir, { recursive: true, force: true });
});

describe("the client installed from its tarball outside the repository", () => {
  it("is installed outside the repository, with no private package anywhere", () => {
    expect(relative(repoRoot, consumerDir).startsWith("..")).toBe(true);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(manifest.dependencies).toEqual({
      "eventsource-parser": expect.any(String),
      "openapi-fetch": expect.any(String),
    });
    expect(existsSync(join(consumerDir, "node_modules", "openapi-fetch"))).toBe(true);
    expect(existsSync(join(consumerDir, "node_modules", "eventsource-parser"))).toBe(true);
    expect(existsSync(join(consumerDir, "node_modules", "@skillrun", "contract"))).toBe(false);
  });

  it("holds the compiled sources and the contract's types, no tests", () => {
    const files = readdirSync(join(installed, "dist"), { recursive: true }).map(String);
    expect(files).toEqual(expect.arrayContaining(["index.js", "index.d.ts", "contract.d.ts"]));
    expect(files.filter((file) => /test/.test(file))).toEqual([]);
    const declarations = files.filter((file) => file.endsWith(".d.ts"));
    const importingContract = declarations.filter((file) =>
      readFileSync(join(installed, "dist", file), "utf8").includes("@skillrun/contract"),
    );
    expect(importingContract).toEqual([]);
    expect(readFileSync(join(installed, "dist", "contract.d.ts"), "utf8")).toContain(
      "export interface paths",
    );
  });

  it("types a strict NodeNext TypeScript consumer from its declarations", async () => {
    writeFileSync(
      join(consumerDir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          // The package's declarations, openapi-fetch's included, must check too.
          skipLibCheck: false,
          types: [],
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(
      join(consumerDir, "consumer.ts"),
      `import {
  ApiError,
  type components,
  createSkillrunClient,
  type RunSession,
  type Skill,
  waitForRun,
} from "@skillrun/client";

const client = createSkillrunClient({ baseUrl: "http://127.0.0.1:8080/v1", apiKey: "key" });

export async function finished(id: string): Promise<RunSession> {
  const { data, error } = await client.GET("/run/{id}", { params: { path: { id } } });
  if (error) throw new Error(typeof error.detail === "string" ? error.detail : "invalid");
  const skillId: string = data.skill_id;
  console.log(skillId);
  return waitForRun(client, data.id, { timeoutMs: 1000 });
}

export const names = (skills: Skill[]): string[] => skills.map((skill) => skill.name);
export const state: components["schemas"]["RunSessionState"] = "finish";
export const status = (error: ApiError): number => error.status;

// @ts-expect-error the contract has no such path
client.GET("/runs");
// @ts-expect-error a run's id is a string
client.GET("/run/{id}", { params: { path: { id: 1 } } });
// @ts-expect-error "done" is no run state
export const wrong: RunSession["state"] = "done";
`,
    );

    const result = await run(process.execPath, [tsc, "-p", consumerDir], {
      cwd: consumerDir,
    }).then(
      () => "ok",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );

    expect(result).toBe("ok");
  });

  it("runs from plain Node ESM against a live server", async () => {
    await server.importSkillYaml("esm", GREET);
    writeFileSync(
      join(consumerDir, "script.mjs"),
      `import * as api from "@skillrun/client";

const client = api.createSkillrunClient({
  baseUrl: process.env.SKILLRUN_URL,
  apiKey: process.env.SKILLRUN_KEY,
});
const ids = [];
for (const name of ["Ada", "Grace"]) {
  const started = await client.POST("/run/", { body: { skill_id: "skill_greet", inputs: { name } } });
  ids.push(started.data.id);
}
const ended = await Promise.all(ids.map((id) => api.waitForRun(client, id, { timeoutMs: 10000 })));
const listed = [];
for await (const run of api.listAllRuns(client, { limit: 1 })) listed.push(run.id);
const failure = await api.waitForRun(client, "run_missing", { timeoutMs: 5000 }).catch((e) => e);
const watched = [];
for await (const event of api.watchRun(client, ids[0])) watched.push(event.type);
console.log(JSON.stringify({
  exports: Object.keys(api).sort(),
  ended: ended.map((run) => [run.state, run.data]),
  listed: listed.sort().join() === ids.sort().join(),
  failure: [failure instanceof api.ApiError, failure.status, failure.detail],
  watched: watched.at(-1),
}));
`,
    );

    const { stdout } = await run(process.execPath, ["script.mjs"], {
      cwd: consumerDir,
      env: { ...cleanEnv, SKILLRUN_URL: server.baseUrl, SKILLRUN_KEY: await server.keyFor("esm") },
    });

    expect(JSON.parse(stdout)).toEqual({
      exports: [
        "ApiError",
        "TERMINAL_STATES",
        "WaitTimeoutError",
        "createSkillrunClient",
        "isTerminalState",
        "listAllRuns",
        "rerun",
        "waitForRun",
        "watchRun",
      ],
      ended: [
        ["finish", { greeting: "Hello, Ada!" }],
        ["finish", { greeting: "Hello, Grace!" }],
      ],
      listed: true,
      failure: [true, 404, "Run not found"],
      watched: "run_finished",
    });
  });
});
