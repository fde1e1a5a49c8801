import { createNetworkGuard } from "@skillrun/engine";
import { z } from "zod";
import { parseSecretsKey } from "./secrets/secrets-key.js";

/**
 * Everything Skillrun reads from the environment, parsed once at start-up. Nothing else in the
 * server reads `process.env`.
 */
const ConfigSchema = z.object({
  // Where the data lives: unset or `file:…` is SQLite (the embedded default), `postgres://…` is
  // PostgreSQL. A relative SQLite path is relative to the working directory.
  DATABASE_URL: z.string().min(1).default("file:./data/skillrun.db"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // The address clients reach this server at; signed video links are built on it. Defaults to
  // http://HOST:PORT.
  PUBLIC_URL: z.url().optional(),
  // The file store: each recorded run's `<run id>.webm`, each run's files and the uploads (the
  // variable keeps its first name). Created when the first file is written; a relative path is
  // relative to the working directory.
  VIDEO_DIR: z.string().min(1).default("./data/videos"),
  // How long a signed video address (`video_url`) stays valid, in seconds.
  VIDEO_URL_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  // The HMAC key video addresses are signed with. Unset: a random one is generated once and kept in
  // `video-signing-secret` beside the SQLite file (./data with PostgreSQL). Servers that share a
  // database must share this secret, or an address one signs is refused by another.
  VIDEO_SIGNING_SECRET: z.string().min(32).optional(),
  // The AES-256-GCM key secrets and secret run inputs are stored under: 32 random bytes as base64
  // (`openssl rand -base64 32`) or 64 hex digits. Unset: one is generated once and kept in
  // `secrets-key` beside the SQLite file (./data with PostgreSQL). Every server and worker that
  // shares a database must have the same key; a value stored under another key cannot be read.
  SECRETS_KEY: z
    .string()
    .superRefine((text, context) => {
      try {
        parseSecretsKey(text);
      } catch (error) {
        // The message describes the format; it never repeats the value.
        context.addIssue({ code: "custom", message: (error as Error).message });
      }
    })
    .optional(),
  // Largest accepted request body, in bytes; larger bodies get a 413.
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  // How long checking one skill definition sent to the API (PUT, validate) may take, in
  // milliseconds, on a thread of its own; past it the request is a 422 "too complex".
  SKILL_CHECK_BUDGET_MS: z.coerce.number().int().min(10).max(60_000).default(10_000),
  // Runs the worker of `skillrun serve` executes at once; 0 leaves execution to `skillrun worker`
  // processes. `skillrun worker` takes it too (at least 1 there).
  WORKER_CONCURRENCY: z.coerce.number().int().min(0).max(256).default(4),
  // How long a worker's claim on a run holds without renewal (renewed every third of it). A run
  // whose worker died is recovered this long after its last renewal.
  WORKER_LEASE_SECONDS: z.coerce.number().positive().max(3600).default(30),
  // How often an idle worker looks for queued runs it was not told about. Unset: 250 ms on SQLite
  // (runs queued through the same process wake it at once), 5 s on PostgreSQL (every new run is
  // announced with NOTIFY; polling only covers a lost signal connection).
  WORKER_POLL_MS: z.coerce.number().int().min(10).max(60_000).optional(),
  // --- The fair queue (docs/decisions/0042-fair-queue-round-robin.md) ---
  // How many runs one owner may have executing (or paused with their worker) at once, across
  // every worker; the owner's other runs wait queued while other owners' go ahead. Unset: no
  // limit beyond the workers' slots.
  OWNER_MAX_RUNNING: z.coerce.number().int().min(1).max(100_000).optional(),
  // How many runs one owner may have queued; past it `POST /v1/run/` is a 429 with Retry-After.
  // Unset: no limit.
  OWNER_MAX_QUEUED: z.coerce.number().int().min(1).max(10_000_000).optional(),
  // --- end of the fair queue ---
  // On SIGINT/SIGTERM, how long runs under way may go on (nothing new is claimed) before those
  // left are put back in the queue; 0 puts them back at once. A second signal does it at once too.
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(30),
  // --- Run isolation and limits (docs/security.md: Isolation, Limits) ---
  // Runs execute in processes of their own (one per run slot, reused); this bounds the memory each
  // one holds, in MB: its heap is capped at it and its resident memory of its own (buffers outside
  // the heap included; not the Node binary's shared pages) is measured every 100 ms. A run that
  // needs more ends in reset ("the run exceeded its memory limit of … MB"). At least 64: a run
  // process holds about 30 MB before it runs anything.
  RUN_MEMORY_MB: z.coerce.number().int().min(64).max(65_536).default(256),
  // How long a run told to stop (cancel, time limit, shutdown) may take before its process is
  // killed: an expression that never yields (a catastrophic regex) is ended this way.
  RUN_STOP_GRACE_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  // How long a run waits for an answer or a resume (an `ask`, a pause asked for) before it is
  // parked, and how long a `wait` must be to be parked at once: parked, it holds no worker,
  // browser or slot, and any worker goes on with it from its checkpoint once answered, resumed or
  // its wait ended (docs/decisions/0052-parking.md). 0 parks at once.
  PARK_AFTER_SECONDS: z.coerce.number().min(0).max(86_400).default(10),
  // Largest a run's checkpoint may be, as JSON (bytes): its state at a step boundary, a browser
  // run's storage included (docs/decisions/0051-checkpoints.md). A larger one is not kept, and the
  // run cannot go on from that step (a lost worker ends it in reset, a rerun from it is refused).
  RUN_CHECKPOINT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(16_384)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  // Largest a run's `data` may grow, serialized as JSON (bytes); the step that would outgrow it fails.
  RUN_DATA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  // Largest response body an `http` step reads into memory (bytes); a step's `max_bytes` only
  // lowers it. Past it the read stops and the step fails.
  RUN_HTTP_RESPONSE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  // Largest file a step fetches into the run's files (bytes): a `download`, an `http` body saved
  // with `save_to_file`. Past it the transfer stops, nothing is kept and the step fails.
  RUN_DOWNLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1024 * 1024),
  // Most bytes all of one run's files may hold together (its file inputs, downloads, screenshots,
  // saved bodies). A file that would pass it is not kept and its step fails.
  RUN_FILES_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(512 * 1024 * 1024),
  // Largest a run's scratch variables (`let`, `save_as: vars.x`) may grow, as JSON (bytes).
  RUN_VARS_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  // Steps one run may start, nested and repeated ones included: the bound on loops inside loops.
  // Past it the step that would start fails ("the run has started … steps, its limit").
  RUN_MAX_STEPS: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  // Events one execution of a run writes to its step log; past it one warning says so and later
  // events are dropped (the run goes on, and its ending is always written).
  RUN_MAX_EVENTS: z.coerce.number().int().min(10).default(10_000),
  // Bytes of one event's message kept in the step log; longer ones end in "… [truncated: …]".
  RUN_EVENT_MESSAGE_MAX_BYTES: z.coerce.number().int().min(256).default(8192),
  // Bytes of one value in an event's data (a key a step wrote) kept in the step log; a larger
  // value is replaced by a note (the run's data keeps it whole).
  RUN_EVENT_DATA_VALUE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(256)
    .default(64 * 1024),
  // --- end of run isolation and limits ---
  // The Chromium browser steps launch. Unset: the system's (/usr/bin/chromium, … then PATH). A run
  // whose browser cannot be found ends in reset with an error saying where it was looked for.
  CHROMIUM_PATH: z.string().min(1).optional(),
  // Searched for Chromium when CHROMIUM_PATH is unset.
  PATH: z.string().optional(),
  // The unprivileged user Chromium runs as when the server runs as root, since Chromium's sandbox
  // refuses root; ignored otherwise (Chromium then runs as the server's user). `nobody` exists on
  // every Debian system; a user of its own (see docs/security.md) keeps other services' `nobody`
  // processes away from the browser. A run whose user does not exist ends in reset saying so.
  CHROMIUM_USER: z.string().min(1).default("nobody"),
  // Most memory one run's browser may use, in MB: all its Chromium processes together, measured
  // every 500 ms (proportional set size). Past it the browser is killed and the run ends in reset
  // with an error saying how much it used.
  BROWSER_MEMORY_MB: z.coerce.number().int().min(64).max(1_048_576).default(1024),
  // Each run process that has run a browser run launches the browser of its next one as soon as
  // that run's own closed, so that a browser run starts on a Chromium already up (one launched
  // for it alone, never a used one). Costs an idle Chromium per such process; "false" launches
  // each run's browser at its first browser step. docs/decisions/0070-a-browser-ready-for-the-next-run.md
  WARM_BROWSERS: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
  // --- Where runs may connect (the SSRF guard) ---
  // Lets runs (http steps and every request of the browser) reach loopback, private, link-local,
  // CGNAT and other non-public addresses. Off by default, so that a run cannot reach this server,
  // its database or anything else on its networks; cloud metadata addresses stay refused even
  // when on (list one in ALLOWED_PRIVATE_HOSTS to reach it). For local use and tests.
  ALLOW_PRIVATE_NETWORKS: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  // Comma-separated hosts runs may reach although they are private: names, addresses and CIDR
  // ranges, each maybe with a port, e.g. `intranet.example,10.1.2.3,127.0.0.1:9000,10.8.0.0/16`.
  // A name lets through whatever it resolves to.
  ALLOWED_PRIVATE_HOSTS: z
    .string()
    .default("")
    .transform((list) =>
      list
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ""),
    )
    .superRefine((entries, context) => {
      try {
        createNetworkGuard({ allowedHosts: entries });
      } catch (error) {
        context.addIssue({ code: "custom", message: (error as Error).message });
      }
    }),
  // --- Hostile requests: inputs, proxies ---
  // Largest accepted run `inputs`, in bytes of JSON (after string inputs are converted to their
  // declared types); larger inputs are a 422 at body.inputs.
  INPUTS_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  // Deepest accepted nesting of arrays and objects in run `inputs` (the inputs object is level
  // 1); deeper inputs are a 422 at body.inputs.
  INPUTS_MAX_DEPTH: z.coerce.number().int().min(1).max(1000).default(32),
  // Which peers are proxies whose X-Forwarded-Proto/-Host (and Host) may shape the absolute links
  // the server writes (`video_url`, `Link`), with Express's `trust proxy` semantics: "false" (the
  // default: links come from PUBLIC_URL, else HOST and the bound port), "true" (any peer), a hop
  // count ("1"), or addresses/subnets/names ("loopback, 10.0.0.0/8").
  TRUST_PROXY: z
    .string()
    .default("false")
    .transform((v): boolean | number | string => {
      const text = v.trim();
      if (text === "true" || text === "false") return text === "true";
      return /^\d+$/.test(text) ? Number(text) : text;
    }),
  // --- end of hostile requests ---
  // --- Files (docs/operations.md "Files and retention") ---
  // Largest file `POST /v1/file` keeps, and largest an `http(s)` URL given for a `file` input may
  // be when the run fetches it; larger uploads are a 413, larger fetches fail the run at its start.
  FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    // The files index keeps sizes as 32-bit integers.
    .max(2 ** 31 - 1)
    .default(25 * 1024 * 1024),
  // Bytes one owner may keep in the file store: uploads, run files and videos together (what
  // retention or DELETE /v1/file/{id} removes is freed). Past it an upload is a 413, a run that
  // would store a file ends in reset, and a video is not kept. Unset: no quota (what owners keep
  // is counted all the same). docs/decisions/0049-owner-storage-quota.md
  OWNER_STORAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  // Largest a browser profile's storage state may be, as JSON (bytes): an import over it is a
  // 422, and a run whose browser's storage is over it does not save it (its step log says so).
  // An import is bounded by BODY_LIMIT_BYTES too. docs/decisions/0054-browser-profiles.md
  PROFILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(512 * 1024),
  // Browser profiles one owner may keep: past it an import of a new name is a 422, and a run
  // that would save a new one does not (its step log says so).
  PROFILES_PER_OWNER: z.coerce.number().int().min(1).max(100_000).default(100),
  // Days the videos and files of ended runs, and uploads no queued or running run names, are kept;
  // workers remove older ones at start and every hour. 0 keeps everything.
  RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  // --- end of files ---
  // How long a live event stream may be quiet before the server sends a heartbeat comment, so
  // that proxies do not close it (most close idle connections after 30–60 s).
  STREAM_HEARTBEAT_SECONDS: z.coerce.number().positive().max(3600).default(15),
  // How many live streams (GET /v1/run/stream, GET /v1/run/{id}/events/stream) one owner may have
  // open on this server at once; past it a 429.
  OWNER_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(50),
  // Requests one owner's keys may make per minute on this server (each server counts its own);
  // past it a 429 with Retry-After and RateLimit headers. 0 turns the limit off.
  // docs/decisions/0045-rate-limits-per-owner.md
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(1200),
  // How many bytes a live stream may have waiting for a client that does not read before it is
  // closed: what a stalled client costs the server stays bounded.
  STREAM_MAX_BUFFERED_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  // How often a live stream reads the database when nothing wakes it: by default 250 ms on
  // SQLite (nothing does), 2000 ms on PostgreSQL (its triggers' NOTIFY wakes streams at once).
  STREAM_POLL_MS: z.coerce.number().int().min(10).max(600_000).optional(),
  // Whether this process sends webhook deliveries (serve and worker both do by default; any
  // number of processes may, each delivery is taken by one). Deliveries are written whatever
  // this says: a process that does not send leaves them to those that do.
  WEBHOOK_DELIVERY: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
  // --- Schedules (docs/decisions/0053-schedules.md) ---
  // Whether this process fires schedules' due ticks (serve and worker both do by default; any
  // number of processes may, each tick is fired by one of them).
  SCHEDULER: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
  // The shortest interval a schedule's cron may have between two of its times, in seconds; a cron
  // that fires more often is a 422. At least 1.
  SCHEDULE_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  // How many schedules one owner may have; past it `POST /v1/schedule` is a 422.
  SCHEDULES_PER_OWNER: z.coerce.number().int().min(1).max(100_000).default(100),
  // --- end of schedules ---
  // --- Metrics and traces (docs/operations.md "Metrics", "Traces") ---
  // The bearer token `GET /metrics` asks for. Unset: /metrics is answered to clients on loopback
  // only (a 403 for others); set, to anyone sending `Authorization: Bearer <METRICS_TOKEN>`.
  METRICS_TOKEN: z.string().min(16).optional(),
  // The port a `skillrun worker` answers `GET /metrics` on (on HOST), since it serves no API.
  // Unset: a worker process exposes no metrics. `skillrun serve` answers it on PORT and ignores
  // this. docs/decisions/0062-metrics-per-process.md
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // The base address of an OpenTelemetry collector's OTLP/HTTP receiver (e.g.
  // http://127.0.0.1:4318): set, every process traces requests, runs and steps and sends the
  // spans to <endpoint>/v1/traces as JSON. Unset, nothing is traced and OpenTelemetry is never
  // loaded. docs/decisions/0063-traces-with-explicit-context.md
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  // The `service.name` of the spans this process sends.
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default("skillrun"),
  // --- end of metrics and traces ---
  // `skillrun agent` only: the API key (scope `agent`) it calls the server with.
  SKILLRUN_API_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // Validate every response against openapi.yaml too (tests turn it on; a failure is a 500).
  VALIDATE_RESPONSES: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Parses the environment into a Config; throws with every problem listed when it is invalid. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = ConfigSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${problems.join("\n")}`);
  }
  return result.data;
}
