import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import type { TabInfo } from "./browser-access.js";
import { firstLine } from "./error-text.js";

interface TargetInfo {
  targetId: string;
  type: string;
  subtype?: string;
}

/**
 * The tabs of a run's browser: every page of its context (popups and `target=_blank` links
 * included) in the order they opened, and the current one, which steps act on and the video
 * shows. Chromium tells of a new tab at once, Playwright a little later (it prepares the page
 * first), so a click that opens a popup may return before Playwright knows it: the tabs Chromium
 * reports are counted too, and switching waits for Playwright to catch up.
 */
export class Tabs {
  /** Open pages, in the order they opened. */
  private readonly pages: Page[] = [];
  /** Open pages, the most recently current last: where closing the current one goes back to. */
  private readonly recent: Page[] = [];
  /** The page targets Chromium reports, some perhaps not yet pages Playwright gives. */
  private readonly targets = new Set<string>();
  private readonly changed = new Set<() => void>();
  private current: Page | undefined;

  private constructor(
    /** Told of each new current page: the video follows it. */
    private readonly onCurrent: (page: Page) => Promise<void>,
    private readonly problem: (message: string) => void,
  ) {}

  /** Tracks the tabs of `context`, whose only page so far is `first`, the current one. */
  static async track(
    browser: Browser,
    context: BrowserContext,
    first: Page,
    onCurrent: (page: Page) => Promise<void>,
    problem: (message: string) => void,
  ): Promise<Tabs> {
    const tabs = new Tabs(onCurrent, problem);
    tabs.opened(first);
    tabs.current = first;
    context.on("page", (page) => tabs.opened(page));
    let cdp: CDPSession | undefined;
    try {
      cdp = await browser.newBrowserCDPSession();
      cdp.on("Target.targetCreated", ({ targetInfo }: { targetInfo: TargetInfo }) => {
        if (targetInfo.type === "page" && targetInfo.subtype === undefined) {
          tabs.targets.add(targetInfo.targetId);
          tabs.notify();
        }
      });
      cdp.on("Target.targetDestroyed", ({ targetId }: { targetId: string }) => {
        if (tabs.targets.delete(targetId)) tabs.notify();
      });
      // Reports every page target there is now, then each one as it comes and goes.
      await cdp.send("Target.setDiscoverTargets", { discover: true });
    } catch (error) {
      // Switching then goes by the pages Playwright knows, which a fresh popup may not be yet.
      problem(`tabs being opened are not waited for: ${firstLine(error)}`);
    }
    return tabs;
  }

  /** The current page; throws when every tab has closed (the page itself closed the last one). */
  page(): Page {
    if (this.current === undefined) throw new Error("every tab of the run's browser is closed");
    return this.current;
  }

  async switchTo(which: "last" | number, timeoutMs: number, signal: AbortSignal): Promise<TabInfo> {
    const deadline = Date.now() + timeoutMs;
    // Tabs still opening, then (for an index) until there are enough of them.
    await this.until(() => this.targets.size <= this.pages.length, deadline, signal);
    if (typeof which === "number") {
      await this.until(() => which < this.pages.length, deadline, signal);
    }
    const page = which === "last" ? this.pages.at(-1) : this.pages[which];
    if (page === undefined) {
      const count = this.pages.length;
      throw new Error(
        `there is no tab ${which}: ${count === 1 ? "1 tab is" : `${count} tabs are`} open (tab 0${count > 1 ? ` to ${count - 1}` : ""})`,
      );
    }
    await this.makeCurrent(page);
    return this.info(page);
  }

  async closeCurrent(): Promise<TabInfo> {
    const closing = this.page();
    if (this.pages.length === 1) {
      throw new Error("the current tab is the only one open; a run's last tab cannot be closed");
    }
    // Forgotten first, so that its `close` event finds nothing left to do.
    await this.closed(closing);
    await closing.close();
    return this.info(this.page());
  }

  /** Every open tab, in the order they opened, and the place of the current one among them. */
  list(): { pages: readonly Page[]; current: number } {
    return { pages: [...this.pages], current: this.current ? this.pages.indexOf(this.current) : 0 };
  }

  /** Makes the tab at `index` current, when it is open (a restored run's current tab). */
  async show(index: number): Promise<void> {
    const page = this.pages[index];
    if (page !== undefined && page !== this.current) await this.makeCurrent(page);
  }

  private opened(page: Page): void {
    if (this.pages.includes(page)) return;
    this.pages.push(page);
    // Never current yet: the last to go back to.
    this.recent.unshift(page);
    page.on("close", () => void this.closed(page));
    this.notify();
  }

  /** Forgets a closed page; when it was current, the one current before it becomes current. */
  private async closed(page: Page): Promise<void> {
    const index = this.pages.indexOf(page);
    if (index === -1) return;
    this.pages.splice(index, 1);
    this.recent.splice(this.recent.indexOf(page), 1);
    this.notify();
    if (this.current !== page) return;
    this.current = undefined;
    const back = this.recent.at(-1);
    if (back !== undefined) await this.makeCurrent(back);
  }

  private async makeCurrent(page: Page): Promise<void> {
    this.current = page;
    this.recent.splice(this.recent.indexOf(page), 1);
    this.recent.push(page);
    try {
      // A tab in the background is throttled and not painted: the current one is in front.
      await page.bringToFront();
      await this.onCurrent(page);
    } catch (error) {
      if (!page.isClosed())
        this.problem(`the video may not show tab ${this.pages.indexOf(page)}: ${firstLine(error)}`);
    }
  }

  private info(page: Page): TabInfo {
    return { index: this.pages.indexOf(page), tabs: this.pages.length, url: page.url() };
  }

  private notify(): void {
    for (const wake of this.changed) wake();
  }

  /** Resolves once `holds()` does, or at `deadline` either way; rejects when `signal` aborts. */
  private async until(holds: () => boolean, deadline: number, signal: AbortSignal): Promise<void> {
    while (!holds()) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.changed.delete(done);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.changed.add(done);
        signal.addEventListener("abort", done);
      });
    }
  }
}
