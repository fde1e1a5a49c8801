import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { listProcesses, sessionProcesses } from "./processes.js";

describe("sessionProcesses", () => {
  it("lists every process of a session from its stat alone, a zombie as one that cannot run", async () => {
    // A session of its own whose leader (sleep, exec'd by the shell) never reaps the child it
    // inherited: that child exits and stays a zombie.
    const leader = spawn("sh", ["-c", "sh -c 'exit 0' & exec sleep 30"], {
      detached: true,
      stdio: "ignore",
    });
    try {
      const sid = leader.pid as number;
      let found = sessionProcesses(sid);
      for (let tries = 0; tries < 100 && found.length < 2; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        found = sessionProcesses(sid);
      }
      const zombie = found.find((entry) => entry.pid !== sid);
      expect(found.find((entry) => entry.pid === sid)).toEqual({ pid: sid, canRun: true });
      expect(zombie).toMatchObject({ canRun: false });
      // The same processes as listProcesses, which leaves out those that cannot run.
      const live = listProcesses()
        .filter((entry) => entry.sid === sid)
        .map((entry) => entry.pid);
      expect(live).toEqual([sid]);
      expect(sessionProcesses(process.pid)).toEqual([]);
    } finally {
      leader.kill("SIGKILL");
    }
  });
});
