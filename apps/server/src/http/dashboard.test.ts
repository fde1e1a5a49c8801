import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_CSP, dashboardRouter } from "./dashboard.js";

/** The /ui/ router over a folder as Vite builds it, and over one where nothing was built. */

let scratch: string;
const servers: Server[] = [];

async function serve(distDir: string): Promise<string> {
  const app = express();
  app.use(dashboardRouter(distDir));
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "skillrun-dashboard-"));
  mkdirSync(join(scratch, "built", "assets"), { recursive: true });
  writeFileSync(join(scratch, "built", "index.html"), "<!doctype html><title>dashboard</title>");
  writeFileSync(join(scratch, "built", "assets", "index-abc.js"), "console.log(1)");
});

afterAll(() => {
  for (const server of servers) server.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the dashboard at /ui/", () => {
  it("redirects / to /ui/", async () => {
    const origin = await serve(join(scratch, "built"));
    const reply = await fetch(`${origin}/`, { redirect: "manual" });
    expect(reply.status).toBe(302);
    expect(reply.headers.get("location")).toBe("/ui/");
  });

  it("answers its page under a Content-Security-Policy, for its own routes too", async () => {
    const origin = await serve(join(scratch, "built"));
    for (const path of ["/ui/", "/ui/runs/run_1", "/ui/skills"]) {
      const reply = await fetch(`${origin}${path}`);
      expect(reply.status).toBe(200);
      expect(await reply.text()).toContain("<title>dashboard</title>");
      expect(reply.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
      expect(reply.headers.get("cache-control")).toBe("no-cache");
    }
  });

  it("serves hashed assets for good, and a missing one as a 404", async () => {
    const origin = await serve(join(scratch, "built"));
    const asset = await fetch(`${origin}/ui/assets/index-abc.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toMatch(/immutable/);
    expect((await fetch(`${origin}/ui/assets/nothing.js`)).status).toBe(404);
  });

  it("says how to build it when it has not been built, instead of failing", async () => {
    const origin = await serve(join(scratch, "not-built"));
    const reply = await fetch(`${origin}/ui/`);
    expect(reply.status).toBe(503);
    expect(await reply.text()).toMatch(/has not been built: run `npm run build`/);
  });
});
