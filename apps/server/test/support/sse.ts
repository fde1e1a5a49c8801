/** One Server-Sent Events message as a stream carried it, or a comment line. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A Server-Sent Events stream opened with fetch, read message by message. */
export interface SseStream {
  status: number;
  headers: Headers;
  /** Every message and comment so far, in order. */
  messages: SseMessage[];
  /** Resolves once the server has closed the stream. */
  closed: Promise<void>;
  /** Resolves once `done` holds of the messages so far (fails after `timeoutMs`). */
  until(done: (messages: SseMessage[]) => boolean, timeoutMs?: number): Promise<SseMessage[]>;
  /** Closes the stream from the client's side. */
  abort(): void;
}

/**
 * Opens `url` as an event stream and parses what arrives by the SSE rules the server's output
 * uses (`field: value` lines, messages separated by a blank line, `:` comments). Written here,
 * not taken from the client package, so the server's stream is checked by a reader of its own.
 */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const control = new AbortController();
  const response = await fetch(url, { headers, signal: control.signal });
  const messages: SseMessage[] = [];
  const closed = (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          messages.push(parse(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch (error) {
      if (!control.signal.aborted) throw error;
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    messages,
    closed,
    async until(done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(messages)) {
        if (Date.now() > deadline) {
          throw new Error(`the stream never got there: ${JSON.stringify(messages).slice(0, 2000)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages;
    },
    abort: () => control.abort(),
  };
}

function parse(block: string): SseMessage {
  const message: SseMessage = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) {
      message.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(":");
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "id" || field === "event") message[field] = value;
    if (field === "data")
      message.data = message.data === undefined ? value : `${message.data}\n${value}`;
  }
  return message;
}
