import { expect } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { VideoUrlSigner } from "../../src/files/signed-url.js";
import { TEST_VIDEO_SECRET } from "../../src/test-support/test-server.js";
import type { Ctx, Provocation, Table } from "./contract-table.js";
import { call, callStream, type Reply, TOO_LONG_ID } from "./http.js";
import { openSse } from "./sse.js";
import { tampered, withQuery } from "./videos.js";

// The rows of the live view: GET /v1/run/{id}/live_url and the stream GET /v1/run/{id}/live
// (docs/decisions/0057-live-view-through-the-database.md). No worker runs here: a frame is
// written as a run's worker writes it.

type Helpers = {
  unauthorized: (send: (ctx: Ctx, key: string | undefined) => Promise<Reply>) => Provocation[];
  failing: (send: (ctx: Ctx) => Promise<Reply>) => Provocation[];
  newRun: (ctx: Ctx) => Promise<string>;
};

/** A JPEG's first and last bytes around some text: what the stream carries, as it carries it. */
const FRAME = Buffer.concat([
  Buffer.from([0xff, 0xd8]),
  Buffer.from("frame"),
  Buffer.from([0xff, 0xd9]),
]);

/** A signed live view address of `runId` on `origin`, made as the servers make them. */
function signedLive(origin: string, runId: string): string {
  return new VideoUrlSigner(TEST_VIDEO_SECRET, 3600, systemClock).liveUrlFor(origin, runId, 60);
}

async function liveUrl(ctx: Ctx, runId: string): Promise<string> {
  const reply = await call(ctx.main.origin, "GET", `/v1/run/${runId}/live_url`, { key: ctx.alice });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as string;
}

/** A run of alice's that has ended. */
async function endedRun(ctx: Ctx, newRun: Helpers["newRun"]): Promise<string> {
  const id = await newRun(ctx);
  await ctx.main.repos.runs.cancel("alice", id);
  return id;
}

export function liveRows({ unauthorized, failing, newRun }: Helpers): Table {
  return {
    getRunLiveUrl: {
      "200": [
        {
          name: "a queued run",
          send: (ctx) =>
            call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/live_url`, { key: ctx.alice }),
          check: (reply, ctx) =>
            expect(reply.body).toMatch(
              new RegExp(
                `^${ctx.main.origin}/v1/run/${ctx.aliceRun}/live\\?expires=\\d+&signature=[\\w-]{43}$`,
              ),
            ),
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "GET", `/v1/run/${ctx.aliceRun}/live_url`, { key }),
      ),
      "404": [
        {
          name: "an unknown run",
          send: (ctx) =>
            call(ctx.main.origin, "GET", "/v1/run/run_unknown/live_url", { key: ctx.alice }),
          check: (reply) => expect(reply.body).toEqual({ detail: "Run not found" }),
        },
        {
          name: "another owner's run",
          send: (ctx) =>
            call(ctx.main.origin, "GET", `/v1/run/${ctx.bobRun}/live_url`, { key: ctx.alice }),
          check: (reply) => expect(reply.body).toEqual({ detail: "Run not found" }),
        },
      ],
      "409": [
        {
          name: "a run that has ended",
          send: async (ctx) =>
            call(ctx.main.origin, "GET", `/v1/run/${await endedRun(ctx, newRun)}/live_url`, {
              key: ctx.alice,
            }),
          check: (reply) => expect(reply.body).toEqual({ detail: "Run has ended" }),
        },
      ],
      "422": [
        {
          name: "an id over 128 characters",
          send: (ctx) =>
            call(ctx.main.origin, "GET", `/v1/run/${TOO_LONG_ID}/live_url`, { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", "/v1/run/run_anything/live_url", { key: ctx.brokenKey }),
      ),
    },

    getRunLive: {
      "200": [
        {
          name: "a signed address, without a key: the run's latest frame",
          send: async (ctx) => {
            const id = await newRun(ctx);
            await ctx.main.repos.liveViews.writeFrame(id, FRAME, new Date());
            return callStream(ctx.main.origin, await liveUrl(ctx, id), {
              enough: "Content-Type: image/jpeg\r\n",
            });
          },
          check: (reply) => {
            expect(reply.headers.get("content-type")).toBe(
              "multipart/x-mixed-replace; boundary=skillrun-frame",
            );
            expect(reply.text).toMatch(/^--skillrun-frame\r\nContent-Type: image\/jpeg\r\n/);
          },
        },
      ],
      "403": [
        {
          name: "a tampered signature",
          send: async (ctx) => {
            const url = await liveUrl(ctx, ctx.aliceRun);
            const signature = new URL(url).searchParams.get("signature") as string;
            return call(ctx.main.origin, "GET", withQuery(url, { signature: tampered(signature) }));
          },
          check: (reply) => expect(reply.body).toEqual({ detail: "Invalid live view signature" }),
        },
        {
          name: "an address that has expired",
          send: async (ctx) => {
            const expires = String(Math.floor(Date.now() / 1000) - 1);
            const signature = new VideoUrlSigner(TEST_VIDEO_SECRET, 3600, {
              now: () => new Date(Number(expires) * 1000 - 60_000),
            });
            const url = signature.liveUrlFor(ctx.main.origin, ctx.aliceRun, 60);
            return call(ctx.main.origin, "GET", url);
          },
          check: (reply) => expect(reply.body).toEqual({ detail: "Live view link expired" }),
        },
      ],
      "404": [
        {
          name: "a genuine address of an unknown run",
          send: (ctx) => call(ctx.main.origin, "GET", signedLive(ctx.main.origin, "run_unknown")),
          check: (reply) => expect(reply.body).toEqual({ detail: "Run not found" }),
        },
      ],
      "409": [
        {
          name: "a run that has ended",
          send: async (ctx) => {
            const id = await newRun(ctx);
            const url = await liveUrl(ctx, id);
            await ctx.main.repos.runs.cancel("alice", id);
            return call(ctx.main.origin, "GET", url);
          },
          check: (reply) => expect(reply.body).toEqual({ detail: "Run has ended" }),
        },
      ],
      "422": [
        {
          name: "no signature",
          send: async (ctx) =>
            call(
              ctx.main.origin,
              "GET",
              withQuery(await liveUrl(ctx, ctx.aliceRun), { signature: undefined }),
            ),
        },
      ],
      "429": [
        {
          name: "a 51st live stream of the run's owner",
          send: async (ctx) => {
            const open = await Promise.all(
              Array.from({ length: 50 }, () =>
                openSse(`${ctx.main.baseUrl}/run/stream`, { authorization: `Bearer ${ctx.alice}` }),
              ),
            );
            try {
              expect(open.every((stream) => stream.status === 200)).toBe(true);
              return await call(ctx.main.origin, "GET", await liveUrl(ctx, ctx.aliceRun));
            } finally {
              for (const stream of open) stream.abort();
            }
          },
          check: (reply) => {
            expect(reply.headers.get("retry-after")).toBe("5");
            expect(reply.body).toEqual({
              detail:
                "Too many live streams: at most 50 open at once per owner (OWNER_MAX_STREAMS)",
            });
          },
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", signedLive(ctx.broken.origin, "run_anything")),
      ),
    },
  };
}
