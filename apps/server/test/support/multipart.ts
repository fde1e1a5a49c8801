import { type IncomingHttpHeaders, request } from "node:http";

/** One part of a multipart/x-mixed-replace stream: its headers and its body. */
export interface StreamPart {
  headers: Record<string, string>;
  body: Buffer;
}

/** A multipart/x-mixed-replace answer read part by part as it arrives. */
export interface MultipartStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body of a refusal (JSON), when the status is not 200. */
  text: string;
  parts: StreamPart[];
  /** Resolves once the server has ended the answer: whether it sent the closing boundary. */
  ended: Promise<{ closingBoundary: boolean }>;
  /** Resolves once `count` parts have come (fails after `timeoutMs`). */
  until(count: number, timeoutMs?: number): Promise<StreamPart[]>;
  abort(): void;
}

/**
 * Opens `url` and parses its parts by the rules the live view follows: `--<boundary>`, header
 * lines, a blank line, exactly Content-Length bytes, CRLF; `--<boundary>--` at the end. Written
 * here, with no parser of the server's, so the stream is checked by a reader of its own.
 */
export function openMultipart(url: string): Promise<MultipartStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      const type = res.headers["content-type"] ?? "";
      const boundary = /boundary=([^;]+)/.exec(type)?.[1];
      const parts: StreamPart[] = [];
      let buffer = Buffer.alloc(0);
      let closingBoundary = false;
      let text = "";
      const parse = () => {
        if (boundary === undefined) return;
        for (;;) {
          const closing = Buffer.from(`--${boundary}--\r\n`);
          if (buffer.subarray(0, closing.length).equals(closing)) {
            closingBoundary = true;
            buffer = buffer.subarray(closing.length);
            return;
          }
          const open = Buffer.from(`--${boundary}\r\n`);
          if (buffer.length < open.length) return;
          if (!buffer.subarray(0, open.length).equals(open)) {
            throw new Error(`not a part: ${buffer.subarray(0, 40).toString("latin1")}`);
          }
          const headEnd = buffer.indexOf("\r\n\r\n", open.length);
          if (headEnd < 0) return;
          const headers: Record<string, string> = {};
          for (const line of buffer
            .subarray(open.length, headEnd)
            .toString("latin1")
            .split("\r\n")) {
            const colon = line.indexOf(":");
            headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
          }
          const length = Number(headers["content-length"]);
          const bodyStart = headEnd + 4;
          if (buffer.length < bodyStart + length + 2) return;
          const body = Buffer.from(buffer.subarray(bodyStart, bodyStart + length));
          if (buffer.subarray(bodyStart + length, bodyStart + length + 2).toString() !== "\r\n") {
            throw new Error("a part's body is not followed by CRLF");
          }
          parts.push({ headers, body });
          buffer = buffer.subarray(bodyStart + length + 2);
        }
      };
      const ended = new Promise<{ closingBoundary: boolean }>((done) => {
        res.on("data", (chunk: Buffer) => {
          if (res.statusCode !== 200) {
            text += chunk.toString();
            return;
          }
          buffer = Buffer.concat([buffer, chunk]);
          parse();
        });
        res.on("end", () => done({ closingBoundary }));
        res.on("close", () => done({ closingBoundary }));
        res.on("error", () => done({ closingBoundary }));
      });
      const stream: MultipartStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get text() {
          return text;
        },
        parts,
        ended,
        async until(count, timeoutMs = 20_000) {
          const deadline = Date.now() + timeoutMs;
          while (parts.length < count) {
            if (Date.now() > deadline) {
              throw new Error(`only ${parts.length} of ${count} parts came`);
            }
            await new Promise((wait) => setTimeout(wait, 20));
          }
          return parts;
        },
        abort: () => req.destroy(),
      };
      if (res.statusCode === 200) resolve(stream);
      else ended.then(() => resolve(stream), reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Whether `bytes` is a whole JPEG: SOI (FF D8) first, EOI (FF D9) last. */
export function isJpeg(bytes: Buffer): boolean {
  return (
    bytes.length > 4 &&
    bytes[0] === 0xff &&
    bytes[1] === 0xd8 &&
    bytes[bytes.length - 2] === 0xff &&
    bytes[bytes.length - 1] === 0xd9
  );
}
