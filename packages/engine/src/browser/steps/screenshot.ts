import { saveTarget } from "../../definition/schema-parts.js";
import { filesOf } from "../../files/files-of.js";
import { raceAbort } from "../../run/abort.js";
import { formatBytes } from "../../run/limits.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { browserOf, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

export type ScreenshotAction = { save_as?: string; full_page?: boolean } | null;

/** Longest part of a screenshot's file name taken from the step's label. */
const LABEL_CHARS = 60;

/** What a screenshot step gives (and saves under `save_as`). */
export interface ScreenshotResult {
  /** The run file's name, e.g. `screenshot-3-after_login.png`. */
  file: string;
  width: number;
  height: number;
  bytes: number;
  content_type: string;
  sha256: string;
}

/**
 * Takes a PNG of the viewport (or the whole page with `full_page`) and keeps it as a run file
 * `screenshot-<n>-<step label>.png`, n counting the run's screenshots from 1.
 */
export const screenshotStep = defineStepKind<ScreenshotAction>({
  schema: {
    type: ["object", "null"],
    properties: { save_as: saveTarget, full_page: { type: "boolean", default: false } },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const access = browserOf(context);
    // Checked before the browser starts: without run files nothing could be kept.
    const files = filesOf(context);
    const { page, timeout } = await stepPage(context, ELEMENT_TIMEOUT_MS);
    let png: Buffer;
    try {
      const fullPage = action?.full_page ?? false;
      // Playwright takes no abort signal for screenshots; the race lets an abort end the step.
      png = await raceAbort(page.screenshot({ type: "png", fullPage, timeout }), context.signal);
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw new Error(`could not take a screenshot: ${withoutApiName(firstLine(error))}`);
    }
    const wanted = `screenshot-${access.nextScreenshotNumber()}-${fileLabel(context.step.label)}.png`;
    const stored = await files.write(wanted, png, "image/png");
    const result: ScreenshotResult = {
      file: stored.name,
      ...pngSize(png),
      bytes: stored.bytes,
      content_type: stored.content_type,
      sha256: stored.sha256,
    };
    context.detail(`${stored.name} (${formatBytes(stored.bytes)})`);
    if (action?.save_as !== undefined) context.saveAs(action.save_as, result);
    return result;
  },
});

/** A step label as a file name part: `step 3 (screenshot)` → `step-3-screenshot`. */
export function fileLabel(label: string): string {
  const safe = label
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, LABEL_CHARS);
  return safe === "" ? "screenshot" : safe;
}

/** The size a PNG declares in its IHDR chunk, which always comes first. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
