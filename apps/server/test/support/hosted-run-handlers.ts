import type { HostedRunHandlers } from "../../src/worker/run-hosts.js";

/**
 * Handlers for a run executed straight in RunHosts, as a test wants them: `overrides` over ones
 * that record nothing, allow every step's effects and never answer a pause.
 */
export function hostedRunHandlers(overrides: Partial<HostedRunHandlers> = {}): HostedRunHandlers {
  return {
    onEvent: () => {},
    onCheckpoint: () => {},
    onProblem: () => {},
    onBrowserLaunched: () => {},
    onFile: () => {},
    onProfile: () => {},
    onEffects: async () => {},
    onPaused: () => new Promise(() => {}),
    onPauseAbandoned: () => {},
    onFrame: () => {},
    onWaiting: () => {},
    ...overrides,
  };
}
