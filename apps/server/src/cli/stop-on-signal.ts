/**
 * On SIGINT or SIGTERM: closes what `close` closes (a draining close), then exits. A second
 * signal while that is under way asks `close` to stop at once (`now`); the exit still follows
 * the first close's end.
 */
export function stopOnSignal(
  logger: {
    info(details: object, message: string): void;
    error(details: object, message: string): void;
  },
  close: (options: { now: boolean }) => Promise<void>,
): void {
  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing !== undefined) {
      logger.info({ signal }, `${signal} again: stopping at once`);
      void close({ now: true });
      return;
    }
    logger.info({ signal }, "shutting down");
    closing = close({ now: false });
    closing.then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "could not shut down cleanly");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
