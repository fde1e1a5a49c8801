import { createWriteStream, openAsBlob } from "node:fs";
import { basename } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { components } from "@skillrun/contract";
import { AGENT_PROTOCOL, AGENT_PROTOCOL_HEADER } from "../agent-api/protocol.js";

export type AgentJob = components["schemas"]["AgentJob"];
export type AgentEventsRequest = components["schemas"]["AgentEventsRequest"];
export type AgentEndRequest = components["schemas"]["AgentEndRequest"];
export type AgentRunStatus = components["schemas"]["AgentRunStatus"];
export type AgentProfileSaved = components["schemas"]["AgentProfileSaved"];
export type StorageStateBody = components["schemas"]["StorageState"];

/** The server speaks another protocol version: the agent cannot work with it at all. */
export class ProtocolRefused extends Error {
  override readonly name = "ProtocolRefused";
}

/** The key was refused (unknown, revoked, or without the scope `agent`): retrying will not help. */
export class KeyRefused extends Error {
  override readonly name = "KeyRefused";
}

/** The server says the agent no longer holds the run (409): the agent stops it. */
export class RunNotHeld extends Error {
  override readonly name = "RunNotHeld";
}

/** Who the agent is, as it tells the server. */
export interface AgentIdentity {
  id: string;
  name: string;
  version: string;
}

// A call that is not a long poll gives up after this long, and counts as a failed call.
const CALL_TIMEOUT_MS = 15_000;

/**
 * The agent's calls to the server (docs/decisions/0065-agents-pull-client-runs.md): outbound
 * HTTP only, each with the key and the protocol version. A 426 and a 401/403 throw errors of
 * their own (nothing to retry); a 409 on a run throws RunNotHeld; anything else unexpected
 * throws a plain Error, which the caller retries with backoff.
 */
export class ServerLink {
  private readonly base: string;

  constructor(
    server: string,
    private readonly key: string,
    readonly agent: AgentIdentity,
  ) {
    this.base = `${server.replace(/\/+$/, "")}/v1`;
  }

  /** Waits up to `waitSeconds` for a client run; null when none came. */
  async claim(waitSeconds: number, signal: AbortSignal): Promise<AgentJob | null> {
    const { id, name, version } = this.agent;
    const response = await this.call(
      "POST",
      "/agent/claim",
      { agent_id: id, name, version, wait: waitSeconds },
      AbortSignal.any([signal, AbortSignal.timeout(waitSeconds * 1000 + CALL_TIMEOUT_MS)]),
    );
    if (response.status === 204) return null;
    return (await response.json()) as AgentJob;
  }

  /** Reports a run's progress (and renews its lease); the answer says what became of the run. */
  async events(runId: string, body: Omit<AgentEventsRequest, "agent_id">): Promise<AgentRunStatus> {
    const response = await this.call(
      "POST",
      `/agent/run/${encodeURIComponent(runId)}/events`,
      { agent_id: this.agent.id, ...body },
      AbortSignal.timeout(CALL_TIMEOUT_MS),
    );
    return (await response.json()) as AgentRunStatus;
  }

  /** Ends a run the agent holds. */
  async end(runId: string, body: Omit<AgentEndRequest, "agent_id">): Promise<AgentRunStatus> {
    const response = await this.call(
      "POST",
      `/agent/run/${encodeURIComponent(runId)}/end`,
      { agent_id: this.agent.id, ...body },
      AbortSignal.timeout(CALL_TIMEOUT_MS),
    );
    return (await response.json()) as AgentRunStatus;
  }

  /**
   * Uploads a file of a run the agent holds (`what`: `files/<name>` or `video`) as the part
   * `file` of a multipart body, streamed from disk with its media type.
   */
  async put(runId: string, what: string, path: string, contentType: string): Promise<void> {
    const form = new FormData();
    form.append("file", await openAsBlob(path, { type: contentType }), basename(path));
    const query = `agent_id=${encodeURIComponent(this.agent.id)}`;
    await this.call(
      "PUT",
      `/agent/run/${encodeURIComponent(runId)}/${what}?${query}`,
      form,
      AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    );
  }

  /** Writes an upload the run's job lists (one of its file inputs) to `target`. */
  async download(
    runId: string,
    fileId: string,
    target: string,
    signal: AbortSignal,
  ): Promise<void> {
    const query = `agent_id=${encodeURIComponent(this.agent.id)}`;
    const response = await this.call(
      "GET",
      `/agent/run/${encodeURIComponent(runId)}/uploads/${encodeURIComponent(fileId)}?${query}`,
      undefined,
      AbortSignal.any([signal, AbortSignal.timeout(UPLOAD_TIMEOUT_MS)]),
    );
    if (response.body === null) throw new Error(`GET upload ${fileId} answered no body`);
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    await pipeline(body, createWriteStream(target, { mode: 0o600 }));
  }

  /** Saves the storage state the run's browser ended with as its profile's next version. */
  async saveProfile(runId: string, state: StorageStateBody): Promise<AgentProfileSaved> {
    const query = `agent_id=${encodeURIComponent(this.agent.id)}`;
    const response = await this.call(
      "PUT",
      `/agent/run/${encodeURIComponent(runId)}/profile?${query}`,
      state,
      AbortSignal.timeout(CALL_TIMEOUT_MS),
    );
    return (await response.json()) as AgentProfileSaved;
  }

  private async call(
    method: string,
    path: string,
    body: unknown,
    signal: AbortSignal,
  ): Promise<Response> {
    const form = body instanceof FormData;
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        // A form's content type (with its boundary) is fetch's to set.
        ...(!form && body !== undefined && { "content-type": "application/json" }),
        [AGENT_PROTOCOL_HEADER]: AGENT_PROTOCOL,
      },
      body: form || body === undefined ? body : JSON.stringify(body),
      signal,
    });
    if (response.ok) return response;
    const detail = await detailOf(response);
    if (response.status === 426) throw new ProtocolRefused(detail);
    if (response.status === 401 || response.status === 403) {
      throw new KeyRefused(`the server refused the key (${response.status}): ${detail}`);
    }
    if (response.status === 409) throw new RunNotHeld(detail);
    throw new Error(`${method} ${path} answered ${response.status}: ${detail}`);
  }
}

// An upload (a video of a long run) may take a while on a slow line.
const UPLOAD_TIMEOUT_MS = 10 * 60 * 1000;

async function detailOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    return typeof detail === "string" ? detail : JSON.stringify(detail);
  } catch {
    return text.slice(0, 500);
  }
}
