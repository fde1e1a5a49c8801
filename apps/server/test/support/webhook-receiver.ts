import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One delivery attempt as the receiver got it, with what its two signature checks said. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The `standardwebhooks` library's verifier accepted the Standard Webhooks headers. */
  libraryVerified: boolean;
  /** `Autotab-Signature` equals a hex HMAC-SHA256 of the raw body computed here. */
  autotabVerified: boolean;
}

/** How the receiver answers its n-th request (1-based): a status and body, or no answer at all. */
export type Answer = { status: number; body?: string } | { hang: true };

/**
 * A webhook endpoint as a customer would write one, on a loopback port: checks both signatures
 * of every request (the library's verifier, and an HMAC by hand as the origin's receivers do)
 * and answers as the test says. It can be closed and started again on the same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  /** The endpoint's signing secret, once the test has registered it. */
  secret: string | undefined;
  private server: Server | undefined;
  private port = 0;

  constructor(private answer: (n: number) => Answer = () => ({ status: 204 })) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  answerWith(answer: (n: number) => Answer): void {
    this.answer = answer;
  }

  /** Listens (again, on the same port once it had one). */
  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        this.received.push({
          headers: req.headers,
          body,
          libraryVerified: this.libraryVerifies(req.headers, body),
          autotabVerified: this.autotabVerifies(req.headers, body),
        });
        const answer = this.answer(this.received.length);
        if ("hang" in answer) return;
        res.writeHead(answer.status, { "content-type": "text/plain" });
        res.end(answer.body ?? "");
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", resolve);
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Stops listening: connections are refused until it starts again. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Waits until `count` requests have arrived. */
  async waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) {
        throw new Error(`the receiver got ${this.received.length} requests, not ${count}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return this.received;
  }

  private libraryVerifies(headers: IncomingHttpHeaders, body: string): boolean {
    if (this.secret === undefined) return false;
    try {
      new Webhook(this.secret).verify(body, headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  }

  private autotabVerifies(headers: IncomingHttpHeaders, body: string): boolean {
    const given = headers["autotab-signature"];
    if (this.secret === undefined || typeof given !== "string") return false;
    const expected = createHmac("sha256", this.secret).update(body, "utf8").digest();
    const actual = Buffer.from(given, "hex");
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
