import { vi } from "vitest";
import { runCli } from "../../src/cli/main.js";

/**
 * `skillrun ...args` run in this process through the command line's own entry (`runCli`, what
 * `dist/cli.js` calls), with what it prints captured: its exit code, stdout and stderr. The
 * commands read their configuration from the environment, as in a shell.
 */
export async function skillrunInProcess(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const log = vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(" ")}\n`;
  });
  const error = vi.spyOn(console, "error").mockImplementation((...parts: unknown[]) => {
    stderr += `${parts.join(" ")}\n`;
  });
  try {
    return { code: await runCli(args), stdout, stderr };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}
