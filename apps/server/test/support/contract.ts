import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toRunEventRow } from "../../src/db/repositories/run-events.js";
import { startTestServer } from "../../src/test-support/test-server.js";
import { AGENT_SKILL_YAML } from "./contract-agents.js";
import {
  ALICE_SKILL,
  BOB_SKILL,
  type Ctx,
  FILE_BYTES,
  FILE_NAME,
  newRun,
  SAMPLE_EVENTS,
  table,
} from "./contract-table.js";
import {
  failingAgents,
  failingKeyOperations,
  failingLiveViews,
  failingProfiles,
  failingRunChanges,
  failingRunEvents,
  failingRunFiles,
  failingRunPauses,
  failingRuns,
  failingSchedules,
  failingSecrets,
  failingSkills,
  failingUploads,
  failingVideos,
  failingWebhooks,
} from "./failing-repositories.js";
import { type Reply, skillRecord } from "./http.js";
import { bodyValidator, declaredResponse, type Operation, operations } from "./spec.js";
import { VIDEO_BYTES } from "./videos.js";

/**
 * The spec-driven contract suite: every status every operation of openapi.yaml declares is
 * provoked over real HTTP (the ways are in ./contract-table.ts), and the response is checked
 * against what the spec declares for it. It runs as one file per resource in test/contract/, so
 * that the resources' files run side by side; each starts servers of its own.
 */

/** The operations of each resource, by operationId; test/contract/<resource>.test.ts runs them. */
export const CONTRACT_RESOURCES = {
  runs: [
    "startRun",
    "listRuns",
    "getRunSummary",
    "getRun",
    "cancelRun",
    "pauseRun",
    "resumeRun",
    "rerunRun",
  ],
  streams: ["listRunEvents", "streamRuns", "streamRunEvents"],
  videos: ["getRunVideoUrl", "getRunVideo"],
  live: ["getRunLiveUrl", "getRunLive"],
  files: ["listRunFiles", "getRunFile", "uploadFile", "deleteFile"],
  skills: ["listSkills", "getSkill", "getSkillYaml", "putSkill", "deleteSkill", "validateSkill"],
  secrets: ["putSecret", "deleteSecret", "listSecrets"],
  profiles: ["listProfiles", "getProfile", "putProfile", "deleteProfile"],
  webhooks: [
    "createWebhook",
    "listWebhooks",
    "deleteWebhook",
    "listWebhookDeliveries",
    "redeliverWebhook",
  ],
  keys: ["createKey", "listKeys", "deleteKey"],
  metrics: ["getMetrics"],
  agents: [
    "agentClaim",
    "agentRunEvents",
    "agentRunEnd",
    "agentPutRunFile",
    "agentPutRunVideo",
    "agentGetRunUpload",
    "agentPutRunProfile",
    "listAgents",
  ],
  schedules: [
    "createSchedule",
    "previewScheduleRuns",
    "listSchedules",
    "getSchedule",
    "updateSchedule",
    "deleteSchedule",
    "triggerSchedule",
    "listScheduleTicks",
  ],
} satisfies Record<string, string[]>;

export type ContractResource = keyof typeof CONTRACT_RESOURCES;

/** Every operation of openapi.yaml and the statuses it declares. */
export const specOperations = operations();

// What every response of the operation and status must satisfy, read from the spec.
function expectDeclaredResponse(op: Operation, status: string, reply: Reply): void {
  expect(reply.status, reply.text).toBe(Number(status));
  // The spec's conventions: every response carries X-Request-Id; no HTML error pages.
  expect(reply.headers.get("x-request-id")).toBeTruthy();

  const declared = declaredResponse(op, status);
  for (const [name, header] of Object.entries(declared.headers)) {
    if (header.required) expect(reply.headers.get(name), `header ${name}`).not.toBeNull();
  }
  const mediaTypes = Object.keys(declared.content);
  const contentType = reply.headers.get("content-type") ?? "";
  if (mediaTypes.length === 0) {
    // Declared without content (a 304): there is none.
    expect(reply.bytes).toHaveLength(0);
    return;
  }
  expect(
    mediaTypes.some((t) => t === "*/*" || contentType.startsWith(t)),
    `content-type ${contentType}`,
  ).toBe(true);
  if (!contentType.startsWith("application/json")) {
    // A binary body (a video, a file) has no structure to check; its provocation compares the bytes.
    expect(reply.bytes.length).toBeGreaterThan(0);
    return;
  }

  const validate = bodyValidator(op, status);
  const valid = validate(reply.body);
  expect(validate.errors ?? [], `body ${reply.text}`).toEqual([]);
  expect(valid).toBe(true);

  // A plain `{"detail": "…"}` error has a fixed message: the spec's example(s) say which.
  if (typeof (reply.body as { detail?: unknown }).detail === "string") {
    const media = declared.content["application/json"];
    const examples = [
      ...(media?.example === undefined ? [] : [media.example]),
      ...Object.values(media?.examples ?? {}).map((e) => e.value),
    ];
    if (examples.length > 0) expect(examples).toContainEqual(reply.body);
  }

  if ("WWW-Authenticate" in declared.headers) {
    expect(reply.headers.get("www-authenticate")).toBe("Bearer");
  }
  if ("Link" in declared.headers) {
    const link = reply.headers.get("link");
    if (link !== null) expect(link).toMatch(/^<[^>]+>; rel="next"$/);
  }
}

/** Provokes every declared status of the resource's operations, on servers of the file's own. */
export function provokeDeclaredStatuses(resource: ContractResource): void {
  const operationIds: string[] = CONTRACT_RESOURCES[resource];
  describe("every operation answers each declared status as openapi.yaml declares it", () => {
    const ctx = {} as Ctx;

    beforeAll(async () => {
      ctx.main = await startTestServer();
      ctx.broken = await startTestServer({
        override: (deps) => ({
          ...deps,
          runs: failingRuns,
          runEvents: failingRunEvents,
          runPauses: failingRunPauses,
          secrets: failingSecrets,
          profiles: failingProfiles,
          skills: failingSkills,
          fileStore: failingVideos,
          runFiles: failingRunFiles,
          uploads: failingUploads,
          webhooks: failingWebhooks,
          schedules: failingSchedules,
          runChanges: failingRunChanges,
          liveViews: failingLiveViews,
          apiKeys: failingKeyOperations(deps.apiKeys),
          agents: failingAgents,
        }),
      });
      ctx.limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: "1" } });
      ctx.alice = await ctx.main.keyFor("alice");
      ctx.bob = await ctx.main.keyFor("bob");
      ctx.brokenKey = await ctx.broken.keyFor("alice");
      await ctx.main.importSkills("alice", [
        skillRecord(ALICE_SKILL, "Contract", [
          { id: "in_query", json_key: "query", data_type: "string", required: false, default: "x" },
        ]),
      ]);
      await ctx.main.importSkills("bob", [skillRecord(BOB_SKILL, "Bob's")]);
      await ctx.main.importSkillYaml("alice", AGENT_SKILL_YAML);
      ctx.aliceRun = await newRun(ctx);
      // Written as a worker writes them, straight into the log: no worker holds this run.
      await ctx.main.db.prisma.runEvent.createMany({
        data: SAMPLE_EVENTS.map((event) => toRunEventRow({ ...event, runId: ctx.aliceRun })),
      });
      await newRun(ctx);
      const bobRun = await ctx.main.repos.runs.create({
        owner: "bob",
        skill: { id: BOB_SKILL, name: "Bob's" },
        inputs: {},
      });
      ctx.bobRun = bobRun.id;
      ctx.videoRun = await newRun(ctx);
      ctx.otherVideoRun = await newRun(ctx);
      await ctx.main.putVideo(ctx.videoRun, VIDEO_BYTES);
      await ctx.main.putVideo(ctx.otherVideoRun, VIDEO_BYTES);
      ctx.fileRun = await newRun(ctx);
      await ctx.main.putRunFile(ctx.fileRun, FILE_NAME, FILE_BYTES, { contentType: "text/csv" });
      const bobFileRun = await ctx.main.repos.runs.create({
        owner: "bob",
        skill: { id: BOB_SKILL, name: "Bob's" },
        inputs: {},
      });
      ctx.bobFileRun = bobFileRun.id;
      await ctx.main.putRunFile(ctx.bobFileRun, FILE_NAME, FILE_BYTES);
    });

    afterAll(async () => {
      await ctx.main?.close();
      await ctx.broken?.close();
      await ctx.limited?.close();
    });

    for (const op of specOperations.filter((o) => operationIds.includes(o.operationId))) {
      describe(`${op.operationId} (${op.method} ${op.path})`, () => {
        for (const status of op.statuses) {
          const entry = table[op.operationId]?.[status];
          if (entry === undefined) continue; // reported by test/contract/coverage.test.ts
          if (!Array.isArray(entry)) {
            it.todo(`${status}: ${entry.unreachable}`);
            continue;
          }
          for (const provocation of entry) {
            it(`${status} for ${provocation.name}`, async () => {
              const reply = await provocation.send(ctx);
              expectDeclaredResponse(op, status, reply);
              provocation.check?.(reply, ctx);
            });
          }
        }
      });
    }
  });
}
