/**
 * Playwright's timeouts, told apart by name (`TimeoutError`, as Playwright names them) rather than
 * by its class: importing playwright-core for the class would load all of it into every
 * process that loads the engine, the API server's included, which never drives a browser. It is
 * loaded where a browser is launched (chromium-session.ts).
 */
export function isTimeoutError(error: unknown): error is Error {
  return error instanceof Error && error.name === "TimeoutError";
}

/** A timeout of our own that the handlers above treat as Playwright's. */
export function timeoutError(message: string): Error {
  const error = new Error(message);
  error.name = "TimeoutError";
  return error;
}
