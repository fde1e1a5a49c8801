import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A webhook endpoint on a loopback port that answers 204 and keeps what it was sent. */
export class Receiver {
  readonly bodies: string[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        this.bodies.push(Buffer.concat(chunks).toString("utf8"));
        res.writeHead(204).end();
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
