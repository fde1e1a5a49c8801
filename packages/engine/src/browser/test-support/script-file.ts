import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** An executable shell script in a folder of its own, and how to remove both. */
export interface ScriptFile {
  path: string;
  dispose(): Promise<void>;
}

/**
 * Writes `text` as an executable `name` that any user may run: under root Chromium runs as an
 * unprivileged user, who must be able to reach and execute whatever stands in for it.
 */
export async function scriptFile(name: string, text: string): Promise<ScriptFile> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  await chmod(dir, 0o755);
  const path = join(dir, name);
  await writeFile(path, text);
  await chmod(path, 0o755);
  return { path, dispose: () => rm(dir, { recursive: true, force: true }) };
}
