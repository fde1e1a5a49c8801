import { secretNameProblem, secretValueProblem } from "../secrets/secret-rules.js";
import { withRepositories } from "./with-database.js";

/**
 * `skillrun secrets set NAME --owner O`: the value is read from stdin (never from the command
 * line, where `ps` and the shell's history would keep it), one trailing newline removed, so
 * `echo "$TOKEN" | skillrun secrets set api_token --owner alice` stores the token alone.
 */
export async function secretsSet(name: string, owner: string): Promise<number> {
  const nameProblem = secretNameProblem(name);
  if (nameProblem !== undefined) return failed(nameProblem);
  if (process.stdin.isTTY) console.error("Type the value, then press Ctrl-D on a line of its own:");
  const value = (await readStdin()).replace(/\r?\n$/, "");
  const valueProblem = secretValueProblem(value);
  if (valueProblem !== undefined) return failed(valueProblem);
  const info = await withRepositories((repos) => repos.secrets.put(owner, name, value));
  console.log(
    `Set secret "${info.name}" for owner "${owner}" (created ${info.created_at}, updated ${info.updated_at}). Skills read it as {{ secrets.${info.name} }}.`,
  );
  return 0;
}

/** `skillrun secrets list --owner O`: names and dates, never values. */
export async function secretsList(owner: string): Promise<number> {
  const secrets = await withRepositories((repos) => repos.secrets.list(owner));
  if (secrets.length === 0) {
    console.log(
      `No secrets for owner "${owner}". Set one with: skillrun secrets set NAME --owner ${owner}`,
    );
    return 0;
  }
  for (const s of secrets) {
    console.log(`${s.name}  created ${s.created_at}  updated ${s.updated_at}`);
  }
  return 0;
}

/** `skillrun secrets delete NAME --owner O`. */
export async function secretsDelete(name: string, owner: string): Promise<number> {
  const deleted = await withRepositories((repos) => repos.secrets.delete(owner, name));
  if (!deleted) {
    return failed(
      `owner "${owner}" has no secret "${name}" (see skillrun secrets list --owner ${owner})`,
    );
  }
  console.log(`Deleted secret "${name}" of owner "${owner}".`);
  return 0;
}

function failed(message: string): number {
  console.error(`skillrun: ${message}`);
  return 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
