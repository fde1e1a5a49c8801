import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkPolicy } from "../network/policy.js";
import { CHROMIUM_FLAGS } from "./chromium-session.js";
import { findChromium } from "./find-chromium.js";
import { runSkill } from "./test-support/run-skill.js";
import { testBrowser } from "./test-support/test-browser.js";

/** Counts every TCP connection made to it: what the guard must keep the page from. */
let secret: Server;
let secretPort: number;
let secretConnections = 0;
/** Serves the page the browser opens; the allow-list lets it (and only it) through. */
let site: Server;
let sitePort: number;

/** The page asks for the secret server in every way a page can: fetch, https, a name, a WebSocket, an image. */
function page(port: number): string {
  return `<!doctype html><title>Reaching in</title><p id="status">waiting</p>
<script>
  const settle = (work) => work.then(() => "reached", () => "blocked");
  const image = (src) => new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve("reached");
    img.onerror = () => resolve("blocked");
    img.src = src;
  });
  const socket = (url) => new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.onopen = () => resolve("reached");
    ws.onerror = () => resolve("blocked");
  });
  Promise.all([
    settle(fetch("http://127.0.0.1:${port}/fetch", { mode: "no-cors" })),
    settle(fetch("https://127.0.0.1:${port}/tls", { mode: "no-cors" })),
    settle(fetch("http://localhost:${port}/name", { mode: "no-cors" })),
    socket("ws://127.0.0.1:${port}/ws"),
    image("http://127.0.0.1:${port}/pixel.png"),
  ]).then((results) => {
    const out = document.createElement("p");
    out.id = "done";
    out.textContent = results.join(",");
    document.body.append(out);
  });
</script>`;
}

/**
 * A page that asks for a connection over UDP to a STUN and a TURN server at a loopback address,
 * as a page can with WebRTC, and says when it has gathered its candidates.
 */
function webrtcPage(port: number): string {
  return `<!doctype html><title>Over UDP</title>
<script>
  const peer = new RTCPeerConnection({ iceServers: [
    { urls: "stun:127.0.0.1:${port}" },
    { urls: "turn:127.0.0.1:${port}?transport=udp", username: "u", credential: "p" },
  ] });
  peer.createDataChannel("probe");
  const done = () => {
    if (document.getElementById("done")) return;
    const out = document.createElement("p");
    out.id = "done";
    out.textContent = "gathered";
    document.body.append(out);
  };
  peer.onicegatheringstatechange = () => { if (peer.iceGatheringState === "complete") done(); };
  peer.createOffer().then((offer) => peer.setLocalDescription(offer));
  setTimeout(done, 5000);
</script>`;
}

/** Counts every datagram sent to it: what WebRTC must not reach past the guard. */
let udp: Socket;
let udpPort: number;
let datagrams = 0;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  secret = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" }).end("s3cr3t");
  });
  secret.on("connection", () => {
    secretConnections += 1;
  });
  secretPort = await listen(secret);
  site = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    const to = url.searchParams.get("to");
    if (to !== null) response.writeHead(302, { location: to }).end();
    else if (url.pathname === "/webrtc")
      response.writeHead(200, { "content-type": "text/html" }).end(webrtcPage(udpPort));
    else response.writeHead(200, { "content-type": "text/html" }).end(page(secretPort));
  });
  sitePort = await listen(site);
  udp = createSocket("udp4");
  udp.on("message", () => {
    datagrams += 1;
  });
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  udpPort = udp.address().port;
});

afterAll(async () => {
  udp.close();
  for (const server of [secret, site]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Runs `steps` in a real Chromium with `network` as both the run's and the browser's policy. */
async function browse(steps: string, network: NetworkPolicy) {
  const test = await testBrowser({ video: false, network });
  try {
    const result = await runSkill(steps, {
      base: `http://127.0.0.1:${sitePort}`,
      browser: test.browser.access,
      network,
    });
    const { problems } = await test.browser.close();
    return { result, problems };
  } finally {
    await test.dispose();
  }
}

describe("the browser under the network policy", () => {
  it("refuses goto of a loopback address by default, naming the rule", async () => {
    const before = secretConnections;
    const url = `http://127.0.0.1:${secretPort}/secret`;
    const { result } = await browse(`- goto: "${url}"\n`, {});
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        step: "step 1 (goto)",
        message: `goto ${url} refused: 127.0.0.1 is a loopback address`,
      },
    });
    expect(secretConnections).toBe(before);
  });

  it("refuses a redirect from an allowed page to a forbidden address", async () => {
    const network = { allowedHosts: [`127.0.0.1:${sitePort}`] };
    const before = secretConnections;
    const target = `http://127.0.0.1:${secretPort}/secret`;
    const { result, problems } = await browse(
      `- goto: "{{ inputs.base }}/?to=${encodeURIComponent(target)}"\n`,
      network,
    );
    // The allow-list lets 127.0.0.1 through on the site's port only, and the refusal says so.
    const message = `127.0.0.1 is a loopback address; the allowed hosts let it through on port ${sitePort} only, not ${secretPort}`;
    expect(result.outcome === "failed" && result.error.message).toMatch(
      new RegExp(`^goto http://127\\.0\\.0\\.1:${sitePort}/\\?to=\\S+ refused: ${message}$`),
    );
    expect(problems).toContain(`GET ${target} refused: ${message}`);
    expect(secretConnections).toBe(before);
  });

  it("blocks what an allowed page fetches from forbidden addresses: fetch, https, names, WebSockets, images", async () => {
    const steps = `- goto: "{{ inputs.base }}/"
- wait_for: { selector: "#done" }
- extract: { selector: "#done", save_as: results }
`;
    // Where the secret server is allowed too, the page reaches it: the page really tries.
    const reachable = await browse(steps, {
      allowedHosts: [`127.0.0.1:${sitePort}`, `127.0.0.1:${secretPort}`, `localhost:${secretPort}`],
    });
    expect(reachable.result.outcome).toBe("finished");
    const reached = secretConnections;
    expect(reached).toBeGreaterThanOrEqual(4);

    const guarded = await browse(steps, { allowedHosts: [`127.0.0.1:${sitePort}`] });
    const onOtherPort = `; the allowed hosts let it through on port ${sitePort} only, not ${secretPort}`;
    expect(guarded.result).toMatchObject({ outcome: "finished" });
    expect(secretConnections).toBe(reached);
    expect(guarded.problems).toEqual(
      expect.arrayContaining([
        `GET http://127.0.0.1:${secretPort}/fetch refused: 127.0.0.1 is a loopback address${onOtherPort}`,
        `CONNECT 127.0.0.1:${secretPort} refused: 127.0.0.1 is a loopback address${onOtherPort}`,
        `GET http://localhost:${secretPort}/name refused: localhost is a loopback address`,
        `GET http://127.0.0.1:${secretPort}/pixel.png refused: 127.0.0.1 is a loopback address${onOtherPort}`,
      ]),
    );
  });

  it("keeps WebRTC from sending UDP to an address the guard refuses (STUN, TURN over UDP)", async () => {
    // Without the guard's flags the page reaches the listener: the page really tries.
    const { chromium } = await import("playwright-core");
    const bare = await chromium.launch({
      executablePath: findChromium(process.env),
      headless: true,
      chromiumSandbox: false,
      args: [...CHROMIUM_FLAGS],
    });
    try {
      const page = await bare.newPage();
      await page.goto(`http://127.0.0.1:${sitePort}/webrtc`);
      await page.waitForSelector("#done");
      await expect.poll(() => datagrams, { timeout: 5000 }).toBeGreaterThan(0);
    } finally {
      await bare.close();
    }

    const before = datagrams;
    const steps = `- goto: "{{ inputs.base }}/webrtc"
- wait_for: { selector: "#done" }
  timeout: 10s
`;
    const guarded = await browse(steps, { allowedHosts: [`127.0.0.1:${sitePort}`] });
    expect(guarded.result).toMatchObject({ outcome: "finished" });
    expect(datagrams).toBe(before);
  });
});
