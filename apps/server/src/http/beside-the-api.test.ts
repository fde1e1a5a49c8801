import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { besideTheApi } from "./beside-the-api.js";

/**
 * The site's routers see every request but the API's. The site here answers any address (as a
 * catch-all would), so whatever reaches the API's stage below it was passed by.
 */

let server: Server;
let origin: string;

beforeAll(async () => {
  const app = express();
  const site = express.Router();
  site.use((req, res) => {
    res.type("text").send(`site ${req.path}`);
  });
  app.use(besideTheApi(site));
  app.use((req, res) => {
    res.type("text").send(`api ${req.path}`);
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

async function answerTo(path: string): Promise<string> {
  return (await fetch(`${origin}${path}`)).text();
}

describe("the site beside the API", () => {
  it("is passed by the API's addresses, in any case, as Express matches /v1", async () => {
    for (const path of ["/v1", "/v1/", "/v1/run/list", "/V1/run/abc", "/v1/skill/x/y"])
      expect(await answerTo(path)).toBe(`api ${path}`);
  });

  it("answers every other address, including those that only begin like the API's", async () => {
    for (const path of ["/", "/docs", "/ui/runs", "/demo/", "/v10", "/v1x/run", "/api/v1/run"])
      expect(await answerTo(path)).toBe(`site ${path}`);
  });
});
