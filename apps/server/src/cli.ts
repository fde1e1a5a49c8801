#!/usr/bin/env node
import { parseArgs } from "node:util";
import { messageOf } from "@skillrun/engine";
import { keysCreate, keysList, keysRevoke } from "./cli/keys.js";
import { migrateCommand } from "./cli/migrate.js";
import { serve } from "./cli/serve.js";
import { skillsImport } from "./cli/skills.js";
import { workerCommand } from "./cli/worker.js";
import { PRIVATE_UMASK } from "./private-files.js";

const USAGE = `Usage: skillrun <command>

  serve [--demo]                     start the API server and a worker (applies pending
                                     migrations first); --demo imports skills/ for owner "demo"
                                     and prints an API key
  worker                             execute queued runs without serving HTTP (for scaling out)
  migrate                            apply pending database migrations and exit
  keys create --owner <owner>        create an API key (printed once, stored hashed)
  keys list                          list API keys (id, owner, prefix, created, revoked)
  keys revoke <id>                   revoke an API key
  skills import <path> --owner <o>   import a skill file or a folder of them (upsert by id)

Configuration comes from the environment (DATABASE_URL, HOST, PORT, ...): see the README.`;

/** The `skillrun` command line: one sub-command per task, each in cli/. */
async function main(argv: string[]): Promise<number> {
  // Whatever this process or its children create (SQLite's journal, ffmpeg's videos, Chromium's
  // profile) is private to the service's user; see private-files.ts.
  process.umask(PRIVATE_UMASK);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      owner: { type: "string" },
      demo: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const owner = values.owner;
  switch (`${command} ${sub ?? ""}`.trim()) {
    case "serve":
      return serve({ demo: values.demo === true });
    case "worker":
      return workerCommand();
    case "migrate":
      return migrateCommand();
    case "keys create":
      return owner ? keysCreate(owner) : usageError("keys create needs --owner <owner>");
    case "keys list":
      return keysList();
    case "keys revoke":
      return arg ? keysRevoke(arg) : usageError("keys revoke needs the key's id");
    case "skills import":
      if (!arg) return usageError("skills import needs a path");
      return owner ? skillsImport(arg, owner) : usageError("skills import needs --owner <owner>");
    default:
      return usageError(`unknown command "${positionals.join(" ")}"`);
  }
}

function usageError(message: string): number {
  console.error(`skillrun: ${message}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    // serve and worker keep running until a signal; the other commands end here.
    if (code !== -1) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`skillrun: ${messageOf(error)}`);
    process.exitCode = 1;
  },
);
