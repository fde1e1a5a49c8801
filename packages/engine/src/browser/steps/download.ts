import type { Download, Locator, Page } from "playwright-core";
import { saveTarget, selector, text } from "../../definition/schema-parts.js";
import { type FileResult, fileResult } from "../../files/file-result.js";
import { filesOf } from "../../files/files-of.js";
import { NetworkRefused } from "../../network/guard.js";
import { formatBytes } from "../../run/limits.js";
import { isHttpAddress } from "../../steps/http.js";
import { exchange, networkCause } from "../../steps/http-exchange.js";
import { checkStatus, statusAccepted } from "../../steps/http-response.js";
import { readExcerpt } from "../../steps/read-body.js";
import { saveResponse } from "../../steps/save-response.js";
import type { StepContext } from "../../steps/step-context.js";
import { defineStepKind } from "../../steps/step-kind.js";
import { pageCookies } from "../browser-cookies.js";
import { actOn } from "./act-on.js";
import { completedDownload, NoDownload, namesIn, nextDownload } from "./browser-download.js";
import { browserOf, ELEMENT_TIMEOUT_MS, formatWait, stepPage } from "./step-page.js";

export type DownloadAction = { click?: string; url?: string; frame?: string; save_as?: string };

/** How long a download may take, from the click to the whole file, when the step sets no timeout. */
export const DOWNLOAD_TIMEOUT_MS = 60_000;

/**
 * Downloads a file into the run's files: `click` clicks an element and takes the download it
 * starts (in the page or a tab it opens), `url` fetches an address with the cookies the browser
 * holds for it, through the run's network guard. Gives `{file, name, bytes, content_type,
 * sha256}`: the run file's name, and the name the server suggested.
 */
export const downloadStep = defineStepKind<DownloadAction>({
  schema: {
    type: "object",
    properties: {
      click: {
        ...selector,
        description:
          "Clicks the element matching this CSS selector and takes the download it starts.",
      },
      url: { ...text, description: "Fetches this address with the browser's cookies for it." },
      frame: {
        ...selector,
        description: "The iframe (a CSS selector) the element to click is in.",
      },
      save_as: saveTarget,
    },
    additionalProperties: false,
    // One way to download, exactly: a click or an address.
    anyOf: [{ required: ["click"] }, { required: ["url"] }],
    not: { required: ["click", "url"], properties: { click: true, url: true } },
    dependentRequired: { frame: ["click"] },
  },
  browser: true,
  async run(action, context) {
    const result =
      action.click === undefined
        ? await downloadUrl(action.url ?? "", context)
        : await downloadByClick(action.click, action.frame, context);
    context.detail(`${result.file} (${formatBytes(result.bytes)})`);
    if (action.save_as !== undefined) context.saveAs(action.save_as, result);
    return result;
  },
});

async function downloadByClick(
  clickSelector: string,
  frameSelector: string | undefined,
  context: StepContext,
): Promise<FileResult> {
  const access = browserOf(context);
  // Checked before the browser starts: without run files nothing could be kept.
  const files = filesOf(context);
  const target = await context.render(clickSelector);
  context.detail(`click "${target}"`);
  const frame = frameSelector === undefined ? undefined : await context.render(frameSelector);
  const { page, timeout } = await stepPage(context, DOWNLOAD_TIMEOUT_MS);
  const deadline = Date.now() + timeout;
  const dir = await access.downloadsDir();
  const before = await namesIn(dir);
  const starting = nextDownload(page, timeout, context.signal);
  // Settled here should the click fail first; its own failure is the one reported.
  starting.catch(() => undefined);
  const clickWait = Math.min(timeout, ELEMENT_TIMEOUT_MS);
  await actOn(context, page, target, "click", clickWait, () =>
    elementIn(page, frame, target).click({ timeout: clickWait, signal: context.signal }),
  );
  let download: Download;
  try {
    download = await starting;
  } catch (error) {
    if (error instanceof NoDownload) {
      throw new Error(
        `clicking "${target}" started no download within ${formatWait(timeout)}; for a link to a page, not a file, use click`,
      );
    }
    throw error;
  }
  try {
    const path = await completedDownload(download, {
      dir,
      before,
      maxBytes: context.limits.downloadBytes,
      deadline,
      waited: timeout,
      signal: context.signal,
    });
    const name = download.suggestedFilename();
    return fileResult(await files.copy(path, name), name);
  } finally {
    // The run file is a copy; the browser's own is not kept.
    await download.delete().catch(() => undefined);
  }
}

/** The first element matching `target`, inside the iframe `frame` when given. */
function elementIn(page: Page, frame: string | undefined, target: string): Locator {
  const root = frame === undefined ? page : page.frameLocator(frame);
  return root.locator(target).first();
}

async function downloadUrl(address: string, context: StepContext): Promise<FileResult> {
  const files = filesOf(context);
  const url = await context.render(address);
  const target = `GET ${url}`;
  context.detail(target);
  if (!isHttpAddress(url)) throw new Error(`download ${url}: not an http:// or https:// address`);
  try {
    await context.network.guard.checkUrl(url);
  } catch (error) {
    if (error instanceof NetworkRefused) throw new Error(`${target} refused: ${error.message}`);
    throw new Error(`${target} failed: ${networkCause(error)}`);
  }
  // Before any browser step there is no page, so no cookie to send; nothing is launched for it.
  const cookies = pageCookies(context);
  const ms = context.timeoutMs ?? DOWNLOAD_TIMEOUT_MS;
  return exchange(
    url,
    { method: "GET", headers: {}, follow: true, cookies },
    { ms, text: formatWait(ms) },
    target,
    context,
    async (fetched, answered) => {
      const { status } = fetched.response;
      if (!statusAccepted(status, undefined)) {
        const why = cookies === undefined && [401, 403].includes(status) ? NO_COOKIES : "";
        checkStatus(status, undefined, `${answered}${why}`, await readExcerpt(fetched.response));
      }
      return saveResponse(fetched, files, undefined, context.limits.downloadBytes, answered);
    },
  );
}

/** Why a download by address may be refused: it was sent with no session. */
const NO_COOKIES = " (sent without cookies: no browser step had run yet to sign in)";
