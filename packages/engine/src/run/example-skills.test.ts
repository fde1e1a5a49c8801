import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSkillFile } from "../definition/load.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import { executeSkill } from "./execute-skill.js";
import type { EngineEvent } from "./types.js";

// The repository's skills/ folder, which the server imports at start.
const SKILLS = fileURLToPath(new URL("../../../../skills/", import.meta.url));

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/item.json" && request.headers.accept === "application/json") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"title":"Widget","price":9.5}');
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function runSkill(file: string, inputs: Record<string, unknown>) {
  const definition = await loadSkillFile(`${SKILLS}${file}`);
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition,
    inputs,
    run: { id: "run_1", skill_id: definition.id },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    // The fixture server is on loopback.
    network: LOCAL_TEST_NETWORK,
  });
  const logs = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
  return { result, logs };
}

describe("the example skills run", () => {
  it("hello greets, logs the greeting and waits", async () => {
    const { result, logs } = await runSkill("hello.yaml", { name: "world" });
    expect(result).toEqual({ outcome: "finished", data: { greeting: "Hello, world!" } });
    expect(logs).toEqual(["Hello, world!"]);
  });

  it("sum adds its inputs as numbers", async () => {
    const { result, logs } = await runSkill("sum.yaml", { a: 2, b: 3.5 });
    expect(result).toEqual({ outcome: "finished", data: { total: 5.5 } });
    expect(logs).toEqual(["2 + 3.5 = 5.5"]);
  });

  it("http-get-json keeps the status and title of a local document", async () => {
    const { result } = await runSkill("http-get-json.yaml", { url: `${base}/item.json` });
    expect(result).toMatchObject({
      outcome: "finished",
      data: {
        response: { status: 200, body: { title: "Widget", price: 9.5 } },
        status: 200,
        title: "Widget",
      },
    });
  });
});
