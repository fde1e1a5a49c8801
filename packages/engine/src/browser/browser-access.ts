import type { Page } from "playwright-core";
import type { DialogChoice } from "../definition/types.js";
import type { BrowserSnapshot } from "./browser-snapshot.js";

/** The kinds of JavaScript dialog a page can open. */
export type DialogType = "alert" | "confirm" | "prompt" | "beforeunload";

/** A dialog a page opened, as the one who answers it sees it. */
export interface OpenedDialog {
  type: DialogType;
  /** The dialog's text (empty for beforeunload, whose text browsers no longer show). */
  message: string;
  /** A prompt's default answer, what accepting it answers; empty for the others. */
  defaultValue: string;
}

/** Answers a dialog as it opens; must not throw (a throw counts as `accept`). */
export type DialogHandler = (dialog: OpenedDialog) => DialogChoice;

/** A tab of the run's browser, as `switch_tab` and `close_tab` report the one now current. */
export interface TabInfo {
  /** Its place among the open tabs, from 0, in the order they opened. */
  index: number;
  /** How many tabs are open. */
  tabs: number;
  url: string;
}

/** What browser step kinds are given of the run's browser (see `StepContext.browser`). */
export interface BrowserAccess {
  /**
   * The current tab's page, the one steps act on; the first call launches the browser and
   * rejects when that fails.
   */
  page(): Promise<Page>;
  /** Whether the browser was launched (or is launching): a step that only reads it asks first. */
  started(): boolean;
  /** The folder the browser saves downloads in; like page(), launches the browser if need be. */
  downloadsDir(): Promise<string>;
  /** 1, 2, … within the run, to number screenshot files. */
  nextScreenshotNumber(): number;
  /**
   * Who answers the dialogs of every tab from now on (undefined: nobody). A dialog nobody
   * answers is accepted, so no page ever waits on one.
   */
  handleDialogs(handler: DialogHandler | undefined): void;
  /**
   * Makes a tab current: `last` (the newest) or an index from 0. Waits, up to `timeoutMs`, for
   * tabs the browser is still opening (a popup a click just opened) and for tab `which` to exist.
   */
  switchTab(which: "last" | number, timeoutMs: number, signal: AbortSignal): Promise<TabInfo>;
  /** Closes the current tab and makes the one current before it current again; never the last. */
  closeTab(): Promise<TabInfo>;
  /** The tabs' addresses and the storage, for a checkpoint; null while the browser has not started. */
  snapshot(): Promise<BrowserSnapshot | null>;
  /**
   * Milliseconds since the first frame of the run's video: where "now" is in it (0 until that
   * frame comes). Undefined while the browser has not started and when there is no video.
   */
  videoOffsetMs(): number | undefined;
}
