import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "@skillrun/server/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noopSkill } from "../src/test-support/fixtures.js";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = resolve(packageDir, "../..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

let server: TestServer;
let consumerDir: string | undefined;

beforeAll(async () => {
  // Build from scratch so that a stale dist cannot pass for the current sources.
  rmSync(join(packageDir, "dist"), { recursive: true, force: true });
  await run(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: packageDir });
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  if (consumerDir) rmSync(consumerDir, { recursive: true, force: true });
  await server?.close();
});

describe("the built package", () => {
  it("holds .js and .d.ts files of the sources only, no tests", () => {
    const files = readdirSync(join(packageDir, "dist"), { recursive: true }).map(String);
    expect(files).toContain("index.js");
    expect(files).toContain("index.d.ts");
    expect(files.filter((file) => /test/.test(file))).toEqual([]);
  });

  it("works from plain Node ESM against the real server", async () => {
    await server.importSkills("esm", [noopSkill]);
    const script = `
      import * as api from "@skillrun/client";
      const client = api.createSkillrunClient({
        baseUrl: process.env.SKILLRUN_URL,
        apiKey: process.env.SKILLRUN_KEY,
      });
      const skills = await client.GET("/skill/list");
      const started = await client.POST("/run/", { body: { skill_id: "skill_noop" } });
      await client.POST("/run/{id}/cancel", { params: { path: { id: started.data.id } } });
      const ended = await api.waitForRun(client, started.data.id, { timeoutMs: 5000 });
      const listed = [];
      for await (const run of api.listAllRuns(client)) listed.push(run.id);
      const failure = await api.waitForRun(client, "run_missing", { timeoutMs: 5000 }).catch((e) => e);
      console.log(JSON.stringify({
        exports: Object.keys(api).sort(),
        skills: skills.data.map((skill) => skill.id),
        state: ended.state,
        listed: listed.length === 1 && listed[0] === started.data.id,
        failure: [failure instanceof api.ApiError, failure.status, failure.detail],
      }));
    `;
    // Asynchronous: the server answering the script lives in this process.
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: repoRoot,
      env: {
        ...process.env,
        SKILLRUN_URL: server.baseUrl,
        SKILLRUN_KEY: await server.keyFor("esm"),
      },
    });

    expect(JSON.parse(stdout)).toEqual({
      exports: [
        "ApiError",
        "TERMINAL_STATES",
        "WaitTimeoutError",
        "createSkillrunClient",
        "isTerminalState",
        "listAllRuns",
        "waitForRun",
      ],
      skills: ["skill_noop"],
      state: "cancel",
      listed: true,
      failure: [true, 404, "Run not found"],
    });
  });

  it("types a TypeScript consumer from its declarations", async () => {
    // Inside the package, so that "@skillrun/client" resolves through the workspace link.
    consumerDir = mkdtempSync(join(packageDir, ".consumer-"));
    writeFileSync(
      join(consumerDir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../../tsconfig.base.json",
        compilerOptions: { noEmit: true },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(
      join(consumerDir, "consumer.ts"),
      `import { createSkillrunClient, waitForRun, type RunSession, type Skill } from "@skillrun/client";

const client = createSkillrunClient({ baseUrl: "http://127.0.0.1:8080/v1", apiKey: "key" });

export async function latest(id: string): Promise<RunSession> {
  const { data, error } = await client.GET("/run/{id}", { params: { path: { id } } });
  if (error) throw new Error(typeof error.detail === "string" ? error.detail : "invalid");
  const skillId: string = data.skill_id;
  console.log(skillId);
  return waitForRun(client, data.id, { timeoutMs: 1000 });
}

export const names = (skills: Skill[]): string[] => skills.map((skill) => skill.name);

// @ts-expect-error the contract has no such path
client.GET("/runs");
// @ts-expect-error a run's id is a string
client.GET("/run/{id}", { params: { path: { id: 1 } } });
`,
    );

    const result = await run(process.execPath, [tsc, "-p", consumerDir], { cwd: packageDir }).then(
      () => "ok",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );

    expect(result).toBe("ok");
  });
});
