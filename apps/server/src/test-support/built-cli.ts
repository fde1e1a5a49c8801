import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { paths } from "../paths.js";

const serverDir = join(paths.root, "apps", "server");
const srcDir = join(serverDir, "src");
const cliPath = join(serverDir, "dist", "cli.js");

/**
 * The built `skillrun` command (`apps/server/dist/cli.js`), for tests that need it as a real
 * process (signals, several processes): plain `node`, no TypeScript loader, so it starts in a
 * fraction of the time. `npm test` builds it first (turbo's test task depends on build); run
 * directly, a test fails here rather than exercising a build older than the source.
 */
export function builtCli(): string {
  const built = mtimeOf(cliPath);
  if (built === undefined) {
    throw new Error(`${cliPath} is missing: run "npm run build" first`);
  }
  const newer = sourcesNewerThan(srcDir, built);
  if (newer !== undefined) {
    throw new Error(
      `${relative(paths.root, cliPath)} is older than ${relative(paths.root, newer)}: run "npm run build" first`,
    );
  }
  return cliPath;
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A source file the build holds (no tests, no test support) changed after `since`, if any. */
function sourcesNewerThan(dir: string, since: number): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === "test-support") continue;
      const found = sourcesNewerThan(path, since);
      if (found !== undefined) return found;
    } else if (
      entry.name.endsWith(".ts") &&
      !entry.name.endsWith(".test.ts") &&
      statSync(path).mtimeMs > since
    ) {
      return path;
    }
  }
  return undefined;
}
