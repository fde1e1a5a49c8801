import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { findChromium } from "@skillrun/engine";

/** A loopback site whose page shows the cookies it was sent (`#cookies`, sorted). */
export async function startCookieSite(): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" }).end(
      `<!doctype html><p id="cookies"></p><script>
document.querySelector("#cookies").textContent = document.cookie.split("; ").sort().join("; ") || "none";
</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Makes `dir` a Chromium profile folder signed in to `base`, as the user's own Chromium would
 * leave it: a lasting cookie `session=user`, written into the folder as Chromium closes.
 */
export async function makeProfileFolder(dir: string, base: string): Promise<void> {
  const { chromium } = await import("playwright-core");
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: findChromium(process.env),
    headless: true,
  });
  const expires = Math.floor(Date.now() / 1000) + 3600;
  await context.addCookies([{ name: "session", value: "user", url: base, expires }]);
  await context.close();
}
