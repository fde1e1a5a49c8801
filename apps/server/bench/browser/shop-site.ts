// The demo shop's static pages on a loopback port of their own, so that Skillrun's runs and the
// bare script visit the same pages served the same way, by a process neither of them is.
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import { paths } from "../../src/paths.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

export interface ShopSite {
  /** The shop's page, ending in /demo/ as the skill's default does. */
  url: string;
  close(): Promise<void>;
}

export async function startShopSite(): Promise<ShopSite> {
  const files = new Map<string, Buffer>();
  for (const name of ["index.html", "demo.css", "demo.js"]) {
    files.set(`/demo/${name}`, await readFile(join(paths.demo, name)));
  }
  files.set("/demo/", files.get("/demo/index.html") as Buffer);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    const body = files.get(path);
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    const type = TYPES[extname(path)] ?? TYPES[".html"];
    res.writeHead(200, { "content-type": type as string, "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/demo/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
