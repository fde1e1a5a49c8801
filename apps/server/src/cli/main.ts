import { parseArgs } from "node:util";

const USAGE = `Usage: skillrun <command>

  serve [--demo]                     start the API server and a worker (applies pending
                                     migrations first); --demo imports skills/ for owner "demo"
                                     and prints an API key
  worker                             execute queued runs without serving HTTP (for scaling out)
  migrate                            apply pending database migrations and exit
  agent --server <url>               execute the owner's environment: client runs on this
    [--concurrency <n>] [--chromium <path>] [--name <n>]
    [--profile-dir <dir> [--profile-writable]]
                                     machine; the key (scope agent) from SKILLRUN_API_KEY;
                                     runs' Chromium starts on a copy of <dir> (a Chromium
                                     profile folder), or on <dir> itself if writable
  keys create --owner <owner>        create an API key (printed once, stored hashed) with
    [--scope <s>]... [--name <n>]    scopes (repeated or a comma list; admin, all, without)
  keys list                          list API keys (id, owner, prefix, scopes, name, created,
                                     revoked)
  keys revoke <id>                   revoke an API key
  skills import <path> --owner <o>   import a skill file or a folder of them (upsert by id)
  skills list --owner <o>            list an owner's skills (id, version, name, last change)
  skills export <id> --owner <o>     print a skill's definition as YAML, ready to import again
  skills delete <id> --owner <o>     delete a skill (its runs are kept)
  secrets set <name> --owner <o>     set a secret skills read as secrets.<name>; the value is
                                     read from stdin (one trailing newline removed)
  secrets list --owner <o>           list an owner's secrets (names and dates, never values)
  secrets delete <name> --owner <o>  delete a secret
  schedules list --owner <o>         list an owner's schedules (cron, zone, next time)
  schedules pause|resume <id> --owner <o>
                                     stop a schedule's ticks, or go on from now
  schedules trigger <id> --owner <o> queue a run of a schedule now
  schedules ticks <id> --owner <o>   a schedule's newest ticks: each one's run, or why none
  schedules delete <id> --owner <o>  delete a schedule (its runs are kept)
  runs log <id> --owner <o>          a run's step log, one line per event, with what each
                                     step acted on (its detail) and the file a failure left

Configuration comes from the environment (DATABASE_URL, HOST, PORT, ...): see docs/operations.md.`;

/**
 * The `skillrun` command line: one sub-command per task, each in cli/, loaded only when it runs
 * (serve alone pulls in the HTTP stack and the browser driver; help and usage errors need none).
 */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      owner: { type: "string" },
      scope: { type: "string", multiple: true },
      name: { type: "string" },
      demo: { type: "boolean" },
      server: { type: "string" },
      concurrency: { type: "string" },
      chromium: { type: "string" },
      "profile-dir": { type: "string" },
      "profile-writable": { type: "boolean" },
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
      return (await import("./serve.js")).serve({ demo: values.demo === true });
    case "worker":
      return (await import("./worker.js")).workerCommand();
    case "agent":
      return values.server
        ? (await import("./agent.js")).agentCommand({
            server: values.server,
            ...(values.chromium !== undefined && { chromium: values.chromium }),
            ...(values.concurrency !== undefined && { concurrency: values.concurrency }),
            ...(values.name !== undefined && { name: values.name }),
            ...(values["profile-dir"] !== undefined && { profileDir: values["profile-dir"] }),
            profileWritable: values["profile-writable"] === true,
          })
        : usageError("agent needs --server <url>");
    case "migrate":
      return (await import("./migrate.js")).migrateCommand();
    case "keys create":
      return owner
        ? (await import("./keys.js")).keysCreate(owner, { scope: values.scope, name: values.name })
        : usageError("keys create needs --owner <owner>");
    case "keys list":
      return (await import("./keys.js")).keysList();
    case "keys revoke":
      return arg
        ? (await import("./keys.js")).keysRevoke(arg)
        : usageError("keys revoke needs the key's id");
    case "skills import":
      if (!arg) return usageError("skills import needs a path");
      return owner
        ? (await import("./skills.js")).skillsImport(arg, owner)
        : usageError("skills import needs --owner <owner>");
    case "skills list":
      return owner
        ? (await import("./skills.js")).skillsList(owner)
        : usageError("skills list needs --owner <owner>");
    case "skills export":
    case "skills delete": {
      const verb = sub as "export" | "delete";
      if (!arg) return usageError(`skills ${verb} needs the skill's id`);
      if (!owner) return usageError(`skills ${verb} needs --owner <owner>`);
      const skills = await import("./skills.js");
      return verb === "export" ? skills.skillsExport(arg, owner) : skills.skillsDelete(arg, owner);
    }
    case "secrets set":
    case "secrets delete": {
      const verb = sub as "set" | "delete";
      if (!arg) return usageError(`secrets ${verb} needs the secret's name`);
      if (!owner) return usageError(`secrets ${verb} needs --owner <owner>`);
      const secrets = await import("./secrets.js");
      return verb === "set" ? secrets.secretsSet(arg, owner) : secrets.secretsDelete(arg, owner);
    }
    case "secrets list":
      return owner
        ? (await import("./secrets.js")).secretsList(owner)
        : usageError("secrets list needs --owner <owner>");
    case "schedules list":
      return owner
        ? (await import("./schedules.js")).schedulesList(owner)
        : usageError("schedules list needs --owner <owner>");
    case "schedules pause":
    case "schedules resume":
    case "schedules trigger":
    case "schedules ticks":
    case "schedules delete": {
      if (!arg) return usageError(`schedules ${sub} needs the schedule's id`);
      if (!owner) return usageError(`schedules ${sub} needs --owner <owner>`);
      const schedules = await import("./schedules.js");
      if (sub === "pause" || sub === "resume") {
        return schedules.schedulesPause(arg, owner, sub === "pause");
      }
      if (sub === "trigger") return schedules.schedulesTrigger(arg, owner);
      if (sub === "ticks") return schedules.schedulesTicks(arg, owner);
      return schedules.schedulesDelete(arg, owner);
    }
    case "runs log":
      if (!arg) return usageError("runs log needs the run's id");
      return owner
        ? (await import("./runs.js")).runsLog(arg, owner)
        : usageError("runs log needs --owner <owner>");
    default:
      return usageError(`unknown command "${positionals.join(" ")}"`);
  }
}

function usageError(message: string): number {
  console.error(`skillrun: ${message}\n\n${USAGE}`);
  return 2;
}

/**
 * `main` with a failure reported as the command line reports it: `skillrun: <message>` on stderr
 * and exit code 1. Resolves with the exit code, or -1 for serve and worker, which keep running.
 */
export async function runCli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    // Loaded here, not above: help and usage errors need nothing of the engine.
    const { messageOf } = await import("@skillrun/engine");
    console.error(`skillrun: ${messageOf(error)}`);
    return 1;
  }
}
