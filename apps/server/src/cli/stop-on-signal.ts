/** On SIGINT or SIGTERM: closes what `stop` closes, then exits. */
export function stopOnSignal(
  logger: { info(details: object, message: string): void },
  stop: () => Promise<void>,
): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    stop().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
