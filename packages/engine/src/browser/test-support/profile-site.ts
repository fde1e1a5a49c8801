import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { StoredCookie } from "../browser-snapshot.js";
import { findChromium } from "../find-chromium.js";

/**
 * A loopback site whose page `/` shows the cookies it was sent (`#cookies`) and the localStorage
 * items `who` and `theme` (`#who`, `#theme`), and whose `/set` sets the cookie `added=yes`: a
 * profile folder's tests read what a browser started on the folder holds, and leave a mark.
 */
export interface ProfileSite {
  base: string;
  close(): Promise<void>;
}

const PAGE = `<!doctype html><title>Profile</title>
<p id="cookies"></p><p id="who"></p><p id="theme"></p>
<script>
document.querySelector("#cookies").textContent = document.cookie.split("; ").sort().join("; ") || "none";
document.querySelector("#who").textContent = localStorage.getItem("who") ?? "none";
document.querySelector("#theme").textContent = localStorage.getItem("theme") ?? "none";
</script>`;

export async function startProfileSite(): Promise<ProfileSite> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const headers: Record<string, string> = { "content-type": "text/html" };
    // A lasting cookie: Chromium keeps only those in the folder.
    if (path === "/set") headers["set-cookie"] = "added=yes; Path=/; Max-Age=3600";
    response.writeHead(200, headers).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Does what the user's own Chromium would: starts on `dir` (made if missing), signs in to the
 * site (a lasting cookie `session=user`) and keeps `who=ann` in its localStorage; then closes,
 * writing both into the folder. Or, with `keepOpen`, leaves it running (its SingletonLock held).
 */
export async function makeProfileFolder(dir: string, base: string, keepOpen = false) {
  const { chromium } = await import("playwright-core");
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: findChromium(process.env),
    headless: true,
  });
  const expires = Math.floor(Date.now() / 1000) + 3600;
  await context.addCookies([{ name: "session", value: "user", url: base, expires }]);
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(base);
  await page.evaluate(`localStorage.setItem("who", "ann")`);
  if (keepOpen) return { close: () => context.close() };
  await context.close();
  return { close: async () => {} };
}

/** The cookies a Chromium started on `dir` holds for `base` (name=value, sorted). */
export async function folderCookies(dir: string, base: string): Promise<string[]> {
  const { chromium } = await import("playwright-core");
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: findChromium(process.env),
    headless: true,
  });
  try {
    const cookies: StoredCookie[] = await context.cookies(base);
    return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).sort();
  } finally {
    await context.close();
  }
}
