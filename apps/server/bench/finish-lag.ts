// A browser run's finish lag: from its last step's end to its run_finished event, the time the
// run still shows `play` while its browser closes and its video is completed.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { benchDatabase } from "./support/bench-database.js";
import { api, startServe } from "./support/skillrun.js";
import { sleep } from "./support/stats.js";

export interface FinishLagFigures {
  /** The run's length from its claim to its last step's end, s. */
  runSeconds: number;
  /** Last step_finished → run_finished, ms. */
  lagMs: number;
  /** When the video was in the store, relative to run_finished, ms (negative: before). */
  videoAfterFinishMs: number | null;
}

// About ten seconds of browsing: a page, a few waits, a click between them.
const BROWSER_SKILL = `
id: skill_browse
name: Ten seconds in a browser
inputs:
  - { json_key: url, data_type: string }
steps:
  - goto: "{{ inputs.url }}"
  - wait: 3s
  - click: { selector: "#more" }
  - wait: 3s
  - click: { selector: "#more" }
  - wait: 3s
  - assert_text: { selector: "#count", text: "2" }
`;

const PAGE = `<!doctype html><title>Bench</title>
<button id="more" onclick="count.textContent = Number(count.textContent) + 1">More</button>
<p id="count">0</p>`;

export async function measureFinishLag(): Promise<FinishLagFigures> {
  const page = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  });
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  const database = await benchDatabase("sqlite", [BROWSER_SKILL]);
  // The page is on loopback, which runs may not reach by default.
  const server = await startServe({ ...database.env, ALLOW_PRIVATE_NETWORKS: "true" });
  try {
    const run = await api<{ id: string }>(server.announced, database.key, "/run/", {
      method: "POST",
      body: { skill_id: "skill_browse", inputs: { url } },
    });
    const deadline = Date.now() + 120_000;
    let videoAt: number | null = null;
    for (;;) {
      const found = await api<{ state: string | null; video_url?: string | null }>(
        server.announced,
        database.key,
        `/run/${run.id}`,
      );
      if (videoAt === null && found.video_url) videoAt = Date.now();
      if (found.state !== null && found.state !== "play" && videoAt !== null) break;
      if (Date.now() > deadline)
        throw new Error(`the browser run ${run.id} did not end with a video in 2 minutes`);
      await sleep(20);
    }
    const events = await database.db.prisma.runEvent.findMany({
      where: { runId: run.id },
      orderBy: { id: "asc" },
    });
    const at = (type: string) =>
      events
        .filter((event) => event.type === type)
        .at(-1)
        ?.at.getTime();
    const claimed = at("run_claimed");
    const lastStep = at("step_finished");
    const finished = at("run_finished");
    if (claimed === undefined || lastStep === undefined || finished === undefined) {
      throw new Error(
        `the browser run ${run.id} did not finish: ${events.map((e) => e.type).join(", ")}`,
      );
    }
    return {
      runSeconds: (lastStep - claimed) / 1000,
      lagMs: finished - lastStep,
      videoAfterFinishMs: videoAt === null ? null : videoAt - finished,
    };
  } finally {
    await server.stop();
    await database.drop();
    page.close();
  }
}
