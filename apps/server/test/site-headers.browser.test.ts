import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchTestBrowser } from "../src/test-support/test-browser.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";
import { call } from "./support/http.js";

// The pages served beside the API carry the dashboard's protections: a key typed into the API
// reference is not kept, no page can be framed or sniffed, and a video is a file, never a page.
// The demo's pages are served only by a server started with the demo.

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  key = await server.keyFor("alice");
  await server.importSkillYaml("alice", "id: noop\nname: Noop\nsteps:\n  - log: hi\n");
});
afterAll(() => server?.close());

describe("the API reference at /docs", () => {
  it("does not keep the key a reader types in", async () => {
    const init = await call(server.origin, "GET", "/docs/init.js");
    expect(init.status).toBe(200);
    expect(init.text).toMatch(/persistAuthorization: false/);
    expect(init.text).not.toMatch(/persistAuthorization: true/);
  });

  it("sends a CSP that forbids framing and foreign scripts, and nosniff, on every part", async () => {
    for (const path of ["/docs", "/docs/init.js", "/docs/assets/swagger-ui.css", "/openapi.yaml"]) {
      const reply = await call(server.origin, "GET", path);
      expect(reply.status, path).toBe(200);
      const csp = reply.headers.get("content-security-policy") ?? "";
      expect(csp, path).toMatch(/frame-ancestors 'none'/);
      expect(csp, path).toMatch(/script-src 'self'(;|$)/);
      expect(reply.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });

  describe("in Chromium", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchTestBrowser();
    });
    afterAll(() => browser?.close());

    it("renders the reference under that CSP, with nothing refused", async () => {
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      await page.goto(`${server.origin}/docs`);
      await page.getByText("Skillrun", { exact: false }).first().waitFor();
      await page.locator(".opblock").first().waitFor();
      expect(refused).toEqual([]);
      await page.close();
    });
  });
});

describe("the demo site", () => {
  it("is served only where the demo is on (serve --demo, npm start)", async () => {
    const shop = await call(server.origin, "GET", "/demo/");
    expect(shop.status).toBe(200);
    const plain = await startTestServer({ demo: false });
    try {
      for (const path of ["/demo/", "/demo/backoffice/login", "/demo/demo.js"]) {
        const reply = await call(plain.origin, "GET", path);
        expect(reply.status, path).toBe(404);
        expect(reply.headers.get("content-type"), path).toMatch(/^application\/json/);
      }
    } finally {
      await plain.close();
    }
  });
});

describe("a run's video", () => {
  it("is served with the run files' headers: nosniff and a sandboxing CSP", async () => {
    const started = await call(server.origin, "POST", "/v1/run/", {
      key,
      json: { skill_id: "noop" },
    });
    const runId = (started.body as { id: string }).id;
    await server.putVideo(runId, Buffer.from("webm bytes"));
    const reply = await fetch(server.videoUrlFor(runId));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("video/webm");
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    expect(reply.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
  });
});
