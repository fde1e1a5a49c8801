import type { Socket } from "node:net";

// Node's own answers to requests it refuses before Express sees them, with the contract's JSON
// `{"detail": …}` body instead of Node's empty one.
const ANSWERS: Record<string, [status: number, reason: string, detail: string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "Request header fields too large"],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "Payload Too Large", "Request body too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "Request timeout"],
};
const BAD_REQUEST: [number, string, string] = [400, "Bad Request", "Bad Request"];

/**
 * The HTTP server's `clientError` listener: answers as Node would by default (431 for headers
 * over `maxHeaderSize`, 400 for a request it cannot parse, …), but with a JSON body, then closes
 * the connection. Nothing is written once a response has begun or the socket is gone.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // On a kept-alive connection earlier responses were written: only one under way forbids an answer.
  const current = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const [status, reason, detail] = ANSWERS[error.code ?? ""] ?? BAD_REQUEST;
    const body = JSON.stringify({ detail });
    // As Node does: the answer goes out with the write, then the connection is closed.
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
