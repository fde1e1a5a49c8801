import type { NetworkPolicy } from "@skillrun/engine";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { AgentRepository } from "./db/repositories/agents.js";
import type { ApiKeyRepository } from "./db/repositories/api-keys.js";
import type { LiveViewRepository } from "./db/repositories/live-views.js";
import type { ProfileRepository } from "./db/repositories/profiles.js";
import type { RunChangeRepository } from "./db/repositories/run-changes.js";
import type { RunEventRepository } from "./db/repositories/run-events.js";
import type { RunExecutionRepository } from "./db/repositories/run-execution.js";
import type { RunFileRepository } from "./db/repositories/run-files.js";
import type { RunPauseRepository } from "./db/repositories/run-pauses.js";
import type { RunRepository } from "./db/repositories/runs.js";
import type { ScheduleRepository } from "./db/repositories/schedules.js";
import type { SecretRepository } from "./db/repositories/secrets.js";
import type { SkillRepository } from "./db/repositories/skills.js";
import type { UploadedFileRepository } from "./db/repositories/uploaded-files.js";
import type { WebhookRepository } from "./db/repositories/webhooks.js";
import { demoRouter } from "./demo/site.js";
import type { Clock } from "./domain/clock.js";
import { RouteNotFound } from "./domain/errors.js";
import type { InputLimits } from "./domain/input-limits.js";
import type { FileStore } from "./files/file-store.js";
import { VideoUrlSigner } from "./files/signed-url.js";
import { besideTheApi } from "./http/beside-the-api.js";
import { keepBodyText } from "./http/body-text.js";
import { dashboardRouter } from "./http/dashboard.js";
import { docsRouter } from "./http/docs.js";
import { refuseDotSegments } from "./http/dot-segments.js";
import { errorHandler } from "./http/error-handler.js";
import type { StreamOptions } from "./http/event-stream.js";
import { pydanticQueryIntegers } from "./http/fastapi/query-integers.js";
import { headAsGet } from "./http/head-as-get.js";
import { DEFAULT_LIVE_VIEW_OPTIONS, LiveFeeds, type LiveViewOptions } from "./http/live-feeds.js";
import { linkBaseOf } from "./http/public-url.js";
import { rateLimitPerOwner } from "./http/rate-limit.js";
import { paceRefusals } from "./http/refusal-pacing.js";
import { requestLogging } from "./http/request-logging.js";
import { refuseUnstorableText } from "./http/storable-text.js";
import { OwnerStreams } from "./http/stream-limits.js";
import { receiveUpload } from "./http/upload-body.js";
import { openApiValidator } from "./http/validator.js";
import { countRequests } from "./metrics/http-metrics.js";
import type { Metrics } from "./metrics/metrics.js";
import { metricsEndpoint } from "./metrics/metrics-endpoint.js";
import { paths } from "./paths.js";
import { agentsRouter } from "./routes/agents.js";
import { keysRouter } from "./routes/keys.js";
import { liveViewRouter } from "./routes/live-view.js";
import { profilesRouter } from "./routes/profiles.js";
import { runFilesRouter } from "./routes/run-files.js";
import { runPausesRouter } from "./routes/run-pauses.js";
import { runsRouter } from "./routes/runs.js";
import { schedulesRouter } from "./routes/schedules.js";
import { secretsRouter } from "./routes/secrets.js";
import { skillsRouter } from "./routes/skills.js";
import { streamsRouter } from "./routes/streams.js";
import { uploadsRouter } from "./routes/uploads.js";
import { videosRouter } from "./routes/videos.js";
import { webhooksRouter } from "./routes/webhooks.js";
import type { RunSecrets } from "./secrets/run-secrets.js";
import { SkillChecker } from "./skills/skill-checker.js";
import { requestSpans } from "./tracing/request-spans.js";
import type { Tracing } from "./tracing/tracing.js";

/** What the HTTP app is built from; main wiring and tests each supply their own. */
export interface AppDeps {
  apiKeys: ApiKeyRepository;
  runs: RunRepository;
  runEvents: RunEventRepository;
  /** Pausing and resuming runs. */
  runPauses: RunPauseRepository;
  secrets: SecretRepository;
  /** Browser profiles: their descriptions, imports and deletions. */
  profiles: ProfileRepository;
  skills: SkillRepository;
  /** The index of runs' files. */
  runFiles: RunFileRepository;
  /** Runs' live views: who watches, and the latest frame. */
  liveViews: LiveViewRepository;
  /** Files uploaded for runs' `file` inputs. */
  uploads: UploadedFileRepository;
  /** Webhook endpoints and their deliveries. */
  webhooks: WebhookRepository;
  /** The owners' change feeds of runs. */
  runChanges: RunChangeRepository;
  /** Agents on owners' machines, and the writes they make to the runs they hold. */
  agents: AgentRepository;
  runExecution: RunExecutionRepository;
  /** Opens a run's secrets for the agent that claimed it. */
  runSecrets: RunSecrets;
  /** Tells of runs queued (RunSignals.onQueued): agents' waiting claims look again. */
  queuedWakes: (listener: () => void) => () => void;
  /** Schedules and their ticks. */
  schedules: ScheduleRepository;
  /** Where webhook deliveries may be sent (the rules of runs' `http` steps). */
  network: () => NetworkPolicy;
  fileStore: FileStore;
  /** The time video addresses expire by. */
  clock: Clock;
  logger: Logger;
  /** What GET /metrics reports; requests are counted into it. */
  metrics: Metrics;
  /** Spans of requests, when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Tracing;
  /**
   * The address the server listens on (HOST and the bound port, known once it listens): the base
   * of absolute links when PUBLIC_URL is unset and no trusted proxy says otherwise.
   */
  serverUrl: () => string;
  config: {
    bodyLimitBytes: number;
    /** Whether the demo site is served at /demo/ (`serve --demo`). */
    demo: boolean;
    /** How long checking a skill definition sent to the API may take (SKILL_CHECK_BUDGET_MS). */
    skillCheckBudgetMs: number;
    validateResponses: boolean;
    publicUrl: string | undefined;
    /** Express's `trust proxy` setting (TRUST_PROXY). */
    trustProxy: boolean | number | string;
    inputLimits: InputLimits;
    videoUrlTtlSeconds: number;
    videoSigningSecret: string;
    /** Largest file `POST /v1/file` keeps (FILE_MAX_BYTES). */
    fileMaxBytes: number;
    /** Requests per owner per minute (RATE_LIMIT_PER_MINUTE); 0: no limit. */
    rateLimitPerMinute: number;
    /** How live event streams look for events and keep quiet connections open. */
    eventStream: StreamOptions;
    /** SCHEDULE_MIN_INTERVAL_SECONDS, in ms. */
    scheduleMinIntervalMs: number;
    /** How live views read, watch and let go of slow clients; the defaults when absent. */
    liveView?: LiveViewOptions;
    /** METRICS_TOKEN: the bearer GET /metrics asks for; unset, loopback only. */
    metricsToken: string | undefined;
    /** WORKER_LEASE_SECONDS, in ms: agents' claims hold as long as workers'. */
    leaseMs: number;
    /** RUN_FILES_MAX_BYTES: what one run's files (an agent's too) may hold together. */
    runFilesMaxBytes: number;
  };
  /** Aborted when the server begins to shut down: live streams end, so draining can finish. */
  shutdown: AbortSignal;
  /** Checks skill definitions sent to the API; one over config.skillCheckBudgetMs by default. */
  skillChecker?: SkillChecker;
  /** What wakes live streams (RunSignals.onStreamWake). */
  streamWakes: (listener: (key: string) => void) => () => void;
  /** Draws schedules' jitter; Math.random by default. */
  random?: () => number;
}

/** Builds the Express app. It does not listen: cli/serve.ts does, and tests do on port 0. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  // No ETag on JSON answers: Express would hash every body, on every request, and answer a
  // matching If-None-Match with a 304 the contract does not declare for them (see
  // docs/decisions/0008-no-etag-on-json-answers.md). Only the function res.send hashes with
  // goes: the "etag" setting stays on, because res.sendFile hands it to `send`, which gives the
  // video and run files theirs (see send-stored-file.ts).
  app.set("etag fn", undefined);
  app.set("trust proxy", deps.config.trustProxy);

  app.use(requestLogging(deps.logger));
  app.use(countRequests(deps.metrics));
  if (deps.tracing) app.use(requestSpans(deps.tracing));
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/metrics", metricsEndpoint(deps.metrics, deps.config.metricsToken));
  app.use(
    besideTheApi(
      docsRouter(paths.openapi),
      ...(deps.config.demo ? [demoRouter(paths.demo, deps.clock)] : []),
      dashboardRouter(paths.dashboard),
    ),
  );

  // `POST /v1/run` is accepted as the spec's `POST /v1/run/` (the validator matches on
  // originalUrl, the router on url: both are rewritten).
  app.use((req, _res, next) => {
    if (req.method === "POST" && req.path === "/v1/run") {
      req.url = req.url.replace("/v1/run", "/v1/run/");
      req.originalUrl = req.originalUrl.replace("/v1/run", "/v1/run/");
    }
    next();
  });
  // Not strict: any JSON value parses, so a body such as "abc" reaches the validator and is
  // reported as the wrong type (FastAPI's answer) rather than as a decode error.
  app.use(
    express.json({
      limit: deps.config.bodyLimitBytes,
      strict: false,
      // A skill definition's problems are placed at their line and column in the text sent.
      verify: (req, _res, bytes) => {
        if (req.url?.startsWith("/v1/skill/")) keepBodyText(req, bytes.toString("utf8"));
      },
    }),
  );
  // A skill definition may be sent as YAML (PUT /skill/{id}, POST /skill/validate).
  app.use(
    express.text({
      type: ["application/yaml", "text/yaml"],
      limit: deps.config.bodyLimitBytes,
    }),
  );
  app.use("/v1", refuseDotSegments());
  const head = headAsGet();
  app.use(head.before);
  const limit =
    deps.config.rateLimitPerMinute > 0
      ? rateLimitPerOwner({ perMinute: deps.config.rateLimitPerMinute, logger: deps.logger })
      : undefined;
  if (limit) deps.shutdown.addEventListener("abort", () => limit.close(), { once: true });
  app.use(
    openApiValidator({
      specPath: paths.openapi,
      apiKeys: deps.apiKeys,
      validateResponses: deps.config.validateResponses,
      rateLimit: limit?.middleware,
      multipart: receiveUpload({
        dir: deps.fileStore.uploadsDir,
        maxBytes: deps.config.fileMaxBytes,
      }),
    }),
  );
  app.use(head.after);
  // What the spec cannot say: text the database cannot hold, integers as Pydantic reads them.
  app.use(refuseUnstorableText());
  app.use(pydanticQueryIntegers());
  const signer = new VideoUrlSigner(
    deps.config.videoSigningSecret,
    deps.config.videoUrlTtlSeconds,
    deps.clock,
  );
  const linkBase = linkBaseOf({ publicUrl: deps.config.publicUrl, serverUrl: deps.serverUrl });
  // One count of each owner's live streams on this server: step logs, run changes, live views.
  const ownerStreams = new OwnerStreams(deps.config.eventStream.maxPerOwner);
  const liveViewOptions = deps.config.liveView ?? DEFAULT_LIVE_VIEW_OPTIONS;
  const liveFeeds = new LiveFeeds({
    liveViews: deps.liveViews,
    clock: deps.clock,
    options: liveViewOptions,
    logger: deps.logger,
  });
  deps.shutdown.addEventListener("abort", () => liveFeeds.close(), { once: true });
  // Before the runs' routes, so that /run/stream is never taken for a run's id.
  app.use(
    "/v1",
    streamsRouter({
      runEvents: deps.runEvents,
      runChanges: deps.runChanges,
      clock: deps.clock,
      options: deps.config.eventStream,
      streams: ownerStreams,
      shutdown: deps.shutdown,
      wakes: deps.streamWakes,
    }),
  );
  app.use(
    "/v1",
    runsRouter({
      runs: deps.runs,
      runEvents: deps.runEvents,
      skills: deps.skills,
      uploads: deps.uploads,
      fileStore: deps.fileStore,
      signer,
      linkBase,
      inputLimits: deps.config.inputLimits,
      clock: deps.clock,
    }),
  );
  app.use("/v1", runPausesRouter(deps.runPauses));
  app.use("/v1", videosRouter({ fileStore: deps.fileStore, signer }));
  app.use(
    "/v1",
    liveViewRouter({
      liveViews: deps.liveViews,
      feeds: liveFeeds,
      signer,
      clock: deps.clock,
      options: liveViewOptions,
      streams: ownerStreams,
      linkBase,
    }),
  );
  app.use(
    "/v1",
    runFilesRouter({ runFiles: deps.runFiles, fileStore: deps.fileStore, signer, linkBase }),
  );
  app.use("/v1", uploadsRouter({ uploads: deps.uploads, fileStore: deps.fileStore }));
  const skillChecker =
    deps.skillChecker ?? new SkillChecker(deps.config.skillCheckBudgetMs, deps.logger);
  deps.shutdown.addEventListener("abort", () => void skillChecker.close(), { once: true });
  app.use("/v1", skillsRouter(deps.skills, skillChecker));
  app.use("/v1", secretsRouter(deps.secrets));
  app.use("/v1", profilesRouter(deps.profiles));
  app.use("/v1", webhooksRouter({ webhooks: deps.webhooks, network: deps.network }));
  app.use("/v1", keysRouter(deps.apiKeys));
  app.use(
    "/v1",
    agentsRouter({
      agents: deps.agents,
      execution: deps.runExecution,
      runSecrets: deps.runSecrets,
      uploads: deps.uploads,
      profiles: deps.profiles,
      metrics: deps.metrics,
      queuedWakes: deps.queuedWakes,
      clock: deps.clock,
      logger: deps.logger,
      shutdown: deps.shutdown,
      leaseMs: deps.config.leaseMs,
      files: {
        store: deps.fileStore,
        runFiles: deps.runFiles,
        runFilesMaxBytes: deps.config.runFilesMaxBytes,
        quotaBytes: deps.uploads.quotaBytes,
      },
    }),
  );
  app.use(
    "/v1",
    schedulesRouter({
      schedules: deps.schedules,
      skills: deps.skills,
      runs: deps.runs,
      uploads: deps.uploads,
      inputLimits: deps.config.inputLimits,
      clock: deps.clock,
      minIntervalMs: deps.config.scheduleMinIntervalMs,
      ...(deps.random && { random: deps.random }),
    }),
  );

  app.use((_req, _res, next) => next(new RouteNotFound()));
  app.use(paceRefusals(deps.shutdown));
  app.use(errorHandler);
  return app;
}
