import { createServer, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { multipartViewer } from "./multipart-viewer.js";

// A live view's client that does not read: over a real loopback connection, frames offered to it
// are dropped while one waits in the answer's buffer (at most one frame is held for it), and it
// is let go once it has left a frame unread for the stall time.

let server: Server | undefined;
let client: Socket | undefined;

afterEach(async () => {
  client?.destroy();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

/** A server whose one answer is handed to the test, and a client that never reads it. */
async function stalledAnswer(): Promise<ServerResponse> {
  const answer = new Promise<ServerResponse>((resolve) => {
    server = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "multipart/x-mixed-replace; boundary=skillrun-frame" });
      resolve(res);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server?.address();
  if (address === null || typeof address !== "object") throw new Error("no address");
  client = connect(address.port, "127.0.0.1");
  client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  client.pause();
  return answer;
}

describe("a live view's client that does not read", () => {
  it("has frames dropped rather than queued: at most one waits for it", async () => {
    const res = await stalledAnswer();
    const viewer = multipartViewer(res, 60_000);
    const frame = Buffer.alloc(1024 * 1024, 7);
    let mostBuffered = 0;
    for (let i = 0; i < 100; i += 1) {
      viewer.offer(frame);
      mostBuffered = Math.max(mostBuffered, res.writableLength);
      // The socket's own buffers fill within the first frames; let it try to send.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // 100 MB offered; what waits in the process for this client is one frame and its headers
    // (the part's and the chunked encoding's).
    expect(mostBuffered).toBeGreaterThan(0);
    expect(mostBuffered).toBeLessThan(frame.length + 1024);
    viewer.end();
  });

  it("is let go once a frame has waited for it the stall time", async () => {
    const res = await stalledAnswer();
    const viewer = multipartViewer(res, 1_000);
    const frame = Buffer.alloc(1024 * 1024, 7);
    for (let i = 0; i < 50 && res.writableLength === 0; i += 1) {
      viewer.offer(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(res.writableLength).toBeGreaterThan(0);
    viewer.check(0);
    viewer.check(999);
    expect(res.destroyed).toBe(false);
    viewer.check(1_000);
    expect(res.destroyed).toBe(true);
  });
});
