import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pino } from "pino";
import { createApp } from "../app.js";
import { loadConfig } from "../config.js";
import { openDatabase } from "../db/database.js";
import { localDataDir } from "../db/database-url.js";
import { systemClock } from "../domain/clock.js";
import { createRepositories } from "../repositories.js";
import { keptSigningSecret } from "../videos/signing-secret.js";
import { VideoStore } from "../videos/video-store.js";
import { DEMO_OWNER, prepareDemo } from "./demo.js";

/**
 * `skillrun serve`: migrates, listens, and runs until SIGINT/SIGTERM. Returns -1 ("still
 * running") once listening; errors before that reject.
 */
export async function serve(options: { demo: boolean }): Promise<number> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL });
  const db = await openDatabase(config.DATABASE_URL);
  const repos = createRepositories(db);
  const demoKey = options.demo ? await prepareDemo(repos, config.DATABASE_URL) : undefined;

  const videoSigningSecret =
    config.VIDEO_SIGNING_SECRET ??
    keptSigningSecret(join(localDataDir(config.DATABASE_URL), "video-signing-secret"));

  const app = createApp({
    ...repos,
    videos: new VideoStore(config.VIDEO_DIR),
    clock: systemClock,
    logger,
    config: {
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      validateResponses: config.VALIDATE_RESPONSES,
      publicUrl: config.PUBLIC_URL,
      videoUrlTtlSeconds: config.VIDEO_URL_TTL_SECONDS,
      videoSigningSecret,
    },
  });
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${config.PORT} on ${config.HOST} is in use; set PORT to another port`)
          : error,
      ),
    );
  });

  // PORT=0 picks a free port: report the one actually bound.
  const { port } = server.address() as AddressInfo;
  const url = config.PUBLIC_URL ?? `http://${config.HOST}:${port}`;
  logger.info({ url, database: db.flavour }, "skillrun listening");
  console.log(
    `\nSkillrun is listening on ${url}\n  API reference:  ${url}/docs\n  API base URL:   ${url}/v1`,
  );
  if (demoKey) {
    console.log(`  API key (owner "${DEMO_OWNER}"): ${demoKey}\n`);
    console.log(`Try:\n  curl -H "Authorization: Bearer ${demoKey}" ${url}/v1/skill/list\n`);
  }

  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    server.close(() => {
      db.close().finally(() => process.exit(0));
    });
    // Idle keep-alive connections would hold close() open.
    server.closeIdleConnections();
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return -1;
}
