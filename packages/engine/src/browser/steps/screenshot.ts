import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ref } from "../../definition/schema-parts.js";
import { raceAbort } from "../../run/abort.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { firstLine, withoutApiName } from "../error-text.js";
import { browserOf, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

export type ScreenshotAction = { save_as?: string; full_page?: boolean } | null;

/** Longest part of a screenshot's file name taken from the step's label. */
const LABEL_CHARS = 60;

/** What a screenshot step gives (and saves under `save_as`). */
export interface ScreenshotResult {
  /** The file's name within the run's screenshot folder, e.g. `3-after_login.png`. */
  file: string;
  width: number;
  height: number;
  bytes: number;
}

/**
 * Takes a PNG of the viewport (or the whole page with `full_page`) and writes it to the screenshot
 * folder as `<n>-<step label>.png`, n counting the run's screenshots from 1.
 */
export const screenshotStep = defineStepKind<ScreenshotAction>({
  schema: {
    type: ["object", "null"],
    properties: { save_as: ref("identifier"), full_page: { type: "boolean", default: false } },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const access = browserOf(context);
    const folder = access.screenshotDir;
    // Checked before the browser starts: without a folder nothing could be kept.
    if (folder === undefined) {
      throw new Error("screenshots are not kept by this runner (no screenshot folder is set)");
    }
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
    const file = `${access.nextScreenshotNumber()}-${fileLabel(context.step.label)}.png`;
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, file), png);
    const result: ScreenshotResult = { file, ...pngSize(png), bytes: png.length };
    if (action?.save_as !== undefined) context.save({ [action.save_as]: result });
    return result;
  },
});

/** A step label as a file name part: `step 3 (screenshot)` → `step-3-screenshot`. */
function fileLabel(label: string): string {
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
