import { spawn } from "node:child_process";
import { createRequire } from "node:module";

/** What one load phase measured. */
export interface LoadResult {
  /** Requests per second, the mean over the measured seconds. */
  rps: number;
  p50: number;
  p99: number;
  /** Answers that were not 2xx, and requests that got no answer: both should be 0. */
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** Load sent first and not measured: the JIT, caches and pools warm up. */
  warmupSeconds?: number;
}

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

/**
 * Loads `url` from a separate process (autocannon), so that the generator does not share an event
 * loop with what it measures: a warm-up first, then the measured phase.
 */
export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const { warmupSeconds = 2, seconds = 10 } = options;
  if (warmupSeconds > 0) await autocannon(url, options, warmupSeconds);
  return autocannon(url, options, seconds);
}

function autocannon(url: string, options: LoadOptions, seconds: number): Promise<LoadResult> {
  const args = [
    autocannonBin,
    "-j",
    "-c",
    String(options.connections ?? 32),
    "-d",
    String(seconds),
  ];
  args.push("-m", options.method ?? "GET");
  for (const [name, value] of Object.entries(options.headers ?? {}))
    args.push("-H", `${name}=${value}`);
  if (options.body !== undefined) args.push("-b", options.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      const report = JSON.parse(out) as {
        requests: { average: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
        timeouts: number;
      };
      resolve({
        rps: report.requests.average,
        p50: report.latency.p50,
        p99: report.latency.p99,
        non2xx: report.non2xx,
        errors: report.errors + report.timeouts,
      });
    });
  });
}
