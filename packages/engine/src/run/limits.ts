/** What one run may produce; the operator's choice, passed in with each execution. */
export interface EngineLimits {
  /** Largest the run's `data` may grow, serialized as JSON (UTF-8 bytes). */
  dataBytes: number;
  /** Largest response body an `http` step reads into memory; a step's `max_bytes` only lowers it. */
  httpResponseBytes: number;
  /**
   * Largest file a step fetches into the run's files: a download, an `http` body saved with
   * `save_to_file`. Past it the transfer stops and the step fails.
   */
  downloadBytes: number;
  /** Most bytes all of a run's files may hold together (its inputs, downloads, screenshots, …). */
  runFilesBytes: number;
  /** Largest the run's scratch variables (`vars`) may grow, as JSON, per skill. */
  varsBytes: number;
  /** Most steps one run may start, nested and repeated ones included (a bound on loops). */
  steps: number;
}

export const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  dataBytes: 1024 * 1024,
  httpResponseBytes: 10 * 1024 * 1024,
  downloadBytes: 100 * 1024 * 1024,
  runFilesBytes: 512 * 1024 * 1024,
  varsBytes: 16 * 1024 * 1024,
  steps: 10_000,
};

/** A size for people: `1 MB`, `512 KB`, `10.5 MB`, or bytes below a kilobyte. */
export function formatBytes(bytes: number): string {
  const units = [
    ["GB", 1024 ** 3],
    ["MB", 1024 ** 2],
    ["KB", 1024],
  ] as const;
  for (const [unit, size] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** A step's failure when the run's data would grow past its limit. */
export class DataLimitExceeded extends Error {
  override readonly name = "DataLimitExceeded";

  constructor(bytes: number, limit: number) {
    super(
      `the run's data would be ${formatBytes(bytes)} as JSON, over its limit of ${formatBytes(limit)}; save less (e.g. a part of the response) or raise the limit`,
    );
  }
}

/** A step's failure when the scratch variables would grow past their limit. */
export class VarsLimitExceeded extends Error {
  override readonly name = "VarsLimitExceeded";

  constructor(bytes: number, limit: number) {
    super(
      `the run's variables would be ${formatBytes(bytes)} as JSON, over their limit of ${formatBytes(limit)}; keep less in vars`,
    );
  }
}

/** A step's failure when the run has started as many steps as it may. */
export class StepLimitExceeded extends Error {
  override readonly name = "StepLimitExceeded";

  constructor(limit: number) {
    super(
      `the run has started ${limit} steps, its limit; a loop runs longer than it should (lower its max) or the limit is too low`,
    );
  }
}
