import { chmod, copyFile, mkdtemp } from "node:fs/promises";
import { basename, join } from "node:path";
import { selector } from "../../definition/schema-parts.js";
import { chosenFile } from "../../files/chosen-file.js";
import { sanitiseFileName } from "../../files/file-names.js";
import { fileResult } from "../../files/file-result.js";
import { filesOf } from "../../files/files-of.js";
import { formatBytes } from "../../run/limits.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { actOn } from "./act-on.js";
import { browserOf, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

export type UploadAction = { selector: string; file: string | { file: string }; frame?: string };

/**
 * Sets a file input's file to a run file: `file` is a run file's name (`"{{ steps.csv.file }}"`)
 * or an object with a `file` key (a download's result, a `file` input). The page sees the name
 * the file came with (the object's `name`), else the run file's name.
 */
export const uploadStep = defineStepKind<UploadAction>({
  schema: {
    type: "object",
    required: ["selector", "file"],
    properties: {
      selector: { ...selector, description: "A CSS selector of the file input." },
      file: {
        type: ["string", "object"],
        minLength: 1,
        required: ["file"],
        properties: { file: { type: "string", minLength: 1 } },
        description:
          "Which run file to send: its name, or an object with a `file` key such as a download's result.",
      },
      frame: { ...selector, description: "The iframe (a CSS selector) the file input is in." },
    },
    additionalProperties: false,
  },
  browser: true,
  async run(action, context) {
    const access = browserOf(context);
    // Checked before the browser starts: without run files there is nothing to send.
    const files = filesOf(context);
    const target = await context.render(action.selector);
    const frame = action.frame === undefined ? undefined : await context.render(action.frame);
    const { file, name } = chosenFile(await context.resolve(action.file), files, "upload");
    const where = frame === undefined ? `"${target}"` : `"${target}" in frame "${frame}"`;
    context.detail(`${file.name} (${formatBytes(file.bytes)}) → ${where}`);
    const { page, timeout } = await stepPage(context, ELEMENT_TIMEOUT_MS);
    const staged = await stage(files.pathOf(file.name), name, await access.downloadsDir());
    const root = frame === undefined ? page : page.frameLocator(frame);
    await actOn(context, page, target, "upload to", timeout, () =>
      root.locator(target).first().setInputFiles(staged, { timeout }),
    );
    return fileResult(file, basename(staged));
  },
});

/**
 * A copy of the run file that Chromium can read, named as the page is to see it: the run's
 * folder is private to the server's user, and Chromium may run as another. The copy goes into
 * the browser's own downloads folder (private to Chromium's user, removed with the browser),
 * since the browser reads the file only when the form is sent.
 */
async function stage(source: string, name: string, browserDir: string): Promise<string> {
  const dir = await mkdtemp(join(browserDir, "upload-"));
  // Readable by Chromium's user through its own (0700) folder; nobody else can reach it.
  await chmod(dir, 0o755);
  const path = join(dir, uploadName(name));
  await copyFile(source, path);
  await chmod(path, 0o644);
  return path;
}

/**
 * The name a page sees for an uploaded file: the name it came with, as it was (spaces and accents
 * kept, as a person's own upload would have them), less any folder part, control characters and
 * leading dots; at most 255 bytes, which any file system takes.
 */
export function uploadName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const plain = (name.split(/[/\\]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "");
  let kept = plain.trim().replace(/^\.+/, "");
  while (Buffer.byteLength(kept) > 255) kept = kept.slice(0, -1);
  return kept === "" ? sanitiseFileName(name) : kept;
}
