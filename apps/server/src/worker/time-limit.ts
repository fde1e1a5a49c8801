import { setLongTimeout } from "@skillrun/engine";

/**
 * A run's time limit, which stops while the run is paused: `onExpired` is called once the run
 * has been running (not paused) for `ms` in all.
 */
export class TimeLimit {
  private left: number;
  private since: number;
  private cancel: (() => void) | undefined;

  private readonly total: number;

  constructor(
    ms: number,
    private readonly onExpired: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.total = ms;
    this.left = ms;
    this.since = now();
    this.cancel = setLongTimeout(onExpired, ms);
  }

  /** Stops the clock (the run paused); what is left waits for `resume`. */
  suspend(): void {
    if (this.cancel === undefined) return;
    this.cancel();
    this.cancel = undefined;
    this.left -= this.now() - this.since;
  }

  /** Runs the clock again with what was left. */
  resume(): void {
    if (this.cancel !== undefined) return;
    this.since = this.now();
    this.cancel = setLongTimeout(this.onExpired, Math.max(0, this.left));
  }

  /** Milliseconds of the limit used so far (the clock's time while it ran). */
  used(): number {
    const running = this.cancel === undefined ? 0 : this.now() - this.since;
    return this.total - this.left + running;
  }

  /** Milliseconds left before it expires. */
  remaining(): number {
    return this.total - this.used();
  }

  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}
