import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LARGE_BYTES,
  REPORT_CSV,
  REPORT_PDF,
  SESSION_COOKIE,
  sha256,
} from "../test-support/fixture-files.js";
import { type FixtureSite, startFixtureSite } from "../test-support/fixture-site.js";
import { runSkill } from "../test-support/run-skill.js";
import { testBrowser } from "../test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const csv = {
  bytes: REPORT_CSV.length,
  content_type: "text/csv",
  sha256: sha256(REPORT_CSV),
};
const pdf = {
  bytes: REPORT_PDF.length,
  content_type: "application/pdf",
  sha256: sha256(REPORT_PDF),
};

describe("the download step", () => {
  it("keeps what a click downloads as run files, byte for byte, a new tab's download too", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/files"
- id: csv
  download: { click: "a#csv" }
- download: { click: "#pdf", save_as: pdf }
- id: again
  download: { click: "a#csv-in-tab" }
- set: { csv: "{{ steps.csv }}", again: "{{ steps.again.file }}" }
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome, JSON.stringify(result)).toBe("finished");
      expect(result.data).toEqual({
        csv: { file: "report.csv", name: "report.csv", ...csv },
        pdf: { file: "Q3_report.pdf", name: "Q3 report.pdf", ...pdf },
        again: "report-2.csv",
      });
      expect(await readFile(join(test.filesDir, "report.csv"))).toEqual(REPORT_CSV);
      expect(await readFile(join(test.filesDir, "Q3_report.pdf"))).toEqual(REPORT_PDF);
      expect(await readFile(join(test.filesDir, "report-2.csv"))).toEqual(REPORT_CSV);
      expect(test.files.list().map((file) => [file.name, file.sha256])).toEqual([
        ["report.csv", csv.sha256],
        ["Q3_report.pdf", pdf.sha256],
        ["report-2.csv", csv.sha256],
      ]);
      // The browser's own copies are let go once kept.
      expect(await readdir(await test.browser.access.downloadsDir())).toEqual([]);
    } finally {
      await test.dispose();
    }
  }, 60_000);

  it("fetches a url with the browser's session cookie; without it the server refuses", async () => {
    // The same server under another name: another site to the browser's cookies.
    const otherSite = site.base.replace("127.0.0.1", "localhost");
    const test = await testBrowser({ video: false });
    try {
      const before = await runSkill(
        `- download: { url: "{{ inputs.base }}/files/private/report.csv" }\n`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(before.outcome === "failed" && before.error.message).toBe(
        `HTTP 401 from GET ${site.base}/files/private/report.csv (sent without cookies: no browser step had run yet to sign in) (expected 2xx): sign in first`,
      );
      // Nothing was launched for it.
      expect(test.browser.access.started()).toBe(false);

      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/files/login"
- id: by_url
  download: { url: "{{ inputs.base }}/files/private/latest" }
- id: by_http
  http: { url: "{{ inputs.base }}/files/private/report.csv", cookies: browser, save_to_file: from-http.csv }
- id: no_cookies
  http: { url: "{{ inputs.base }}/files/private/report.csv", expect_status: 401 }
- id: other_site
  http: { url: "{{ inputs.base }}/files/go?to=${encodeURIComponent(`${otherSite}/files/private/report.csv`)}", cookies: browser, expect_status: 401 }
- set:
    by_url: "{{ steps.by_url }}"
    by_http: "{{ steps.by_http.file }}"
    no_cookies: "{{ steps.no_cookies.status }}"
    other_site: "{{ steps.other_site.status }}"
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome, JSON.stringify(result)).toBe("finished");
      expect(result.data).toEqual({
        // Through a redirect: the file is named as the server that answered suggests.
        by_url: {
          file: "private.csv",
          name: "private.csv",
          ...csv,
          content_type: "text/csv; charset=utf-8",
        },
        by_http: {
          file: "from-http.csv",
          name: "private.csv",
          ...csv,
          content_type: "text/csv; charset=utf-8",
        },
        no_cookies: 401,
        // The cookie is 127.0.0.1's: a redirect to another site does not carry it along.
        other_site: 401,
      });
      expect(await readFile(join(test.filesDir, "private.csv"))).toEqual(REPORT_CSV);
      expect(await readFile(join(test.filesDir, "from-http.csv"))).toEqual(REPORT_CSV);
      // The cookie is HttpOnly: the page's script never saw it, the requests did.
      const page = await test.browser.access.page();
      expect(await page.evaluate("document.cookie")).not.toContain(SESSION_COOKIE);
    } finally {
      await test.dispose();
    }
  }, 60_000);

  it("http with cookies: browser before any browser step fails saying so", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `- http: { url: "{{ inputs.base }}/files/private/report.csv", cookies: browser }\n`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome === "failed" && result.error.message).toBe(
        `GET ${site.base}/files/private/report.csv: cookies: browser sends the browser's cookies, but no browser step has run yet; sign in with browser steps (goto, fill, click) before this step`,
      );
    } finally {
      await test.dispose();
    }
  }, 30_000);

  it("stops a download past the run's file limit, keeping nothing", async () => {
    const test = await testBrowser({ video: false });
    try {
      const limit = 1024 * 1024;
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/files"
- download: { click: "#large" }
`,
        {
          base: site.base,
          browser: test.browser.access,
          files: test.files,
          limits: { downloadBytes: limit },
        },
      );
      expect(result.outcome === "failed" && result.error.message).toBe(
        `the download of ${site.base}/files/large.bin is more than 1 MB, over the limit of 1 MB (1048576 bytes) for a file a run fetches`,
      );
      // Nothing of the download; the page as the step failed is the run's one file.
      const names = () => test.files.list().map((file) => file.name);
      expect(names()).toEqual(["failed-step-2-download.png"]);
      // Within the limit the same file comes whole.
      const whole = await runSkill(`- id: large\n  download: { click: "#large" }\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
        limits: { downloadBytes: LARGE_BYTES },
      });
      expect(whole.outcome).toBe("finished");
      expect(test.files.list()).toMatchObject([
        { name: "failed-step-2-download.png" },
        { name: "large.bin", bytes: LARGE_BYTES },
      ]);
      // Past the limit by address as well.
      const byUrl = await runSkill(`- download: { url: "{{ inputs.base }}/files/large.bin" }\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
        limits: { downloadBytes: limit },
      });
      expect(byUrl.outcome === "failed" && byUrl.error.message).toBe(
        `GET ${site.base}/files/large.bin: the file is more than 1 MB, over the limit of 1 MB (1048576 bytes) for a file a run fetches`,
      );
      const kept = ["failed-step-1-download.png", "failed-step-2-download.png", "large.bin"];
      expect(names().sort()).toEqual(kept);
      expect((await readdir(test.filesDir)).sort()).toEqual(kept);
    } finally {
      await test.dispose();
    }
  }, 60_000);

  it("fails clearly when the click starts no download, and points goto of a file to it", async () => {
    const test = await testBrowser({ video: false });
    try {
      const noFile = await runSkill(
        `
- goto: "{{ inputs.base }}/files"
- download: { click: "#page" }
  timeout: 2s
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      // 1.8 s of the step's 2 s at most: time spent getting the page counts against it.
      expect(noFile.outcome === "failed" && noFile.error.message).toMatch(
        /^clicking "#page" started no download within 1\.[0-8]s; for a link to a page, not a file, use click$/,
      );
      const url = `${site.base}/files/report.csv`;
      const gotoFile = await runSkill(`- goto: "{{ inputs.base }}/files/report.csv"\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
      });
      expect(gotoFile.outcome === "failed" && gotoFile.error.message).toBe(
        `goto ${url}: the address answers with a file to download, not a page; use download: { url: "${url}" } to keep it as a run file`,
      );
    } finally {
      await test.dispose();
    }
  }, 60_000);
});

describe("a download by url and the network guard", () => {
  it("refuses an address the policy forbids, and a redirect to one, before connecting", async () => {
    const secret = createServer((_request, response) => response.end("s3cr3t"));
    let connections = 0;
    secret.on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => secret.listen(0, "127.0.0.1", resolve));
    const secretUrl = `http://127.0.0.1:${(secret.address() as AddressInfo).port}/report.csv`;
    const test = await testBrowser({ video: false });
    try {
      const direct = await runSkill(`- download: { url: "${secretUrl}" }\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
        network: {},
      });
      expect(direct.outcome === "failed" && direct.error.message).toBe(
        `GET ${secretUrl} refused: 127.0.0.1 is a loopback address`,
      );
      // The fixture site is allowed, its own redirects followed; a redirect elsewhere is not.
      const network = { allowedHosts: [new URL(site.base).host] };
      const allowed = `${site.base}/files/go?to=${encodeURIComponent("/files/report.csv")}`;
      const within = await runSkill(`- download: { url: "${allowed}" }\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
        network,
      });
      expect(within.outcome).toBe("finished");
      const via = `${site.base}/files/go?to=${encodeURIComponent(secretUrl)}`;
      const redirected = await runSkill(`- download: { url: "${via}" }\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
        network,
      });
      expect(redirected.outcome === "failed" && redirected.error.message).toBe(
        `GET ${via} refused: 127.0.0.1 is a loopback address; the allowed hosts let it through on port ${new URL(site.base).port} only, not ${new URL(secretUrl).port}`,
      );
      expect(connections).toBe(0);
      expect(test.files.list().map((file) => file.name)).toEqual(["report.csv"]);
    } finally {
      await test.dispose();
      secret.closeAllConnections();
      await new Promise((resolve) => secret.close(resolve));
    }
  }, 30_000);
});

describe("the upload step", () => {
  it("sends a run file's exact bytes, by the download's result or by name", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/files"
- id: pdf
  download: { click: "#pdf" }
- id: csv
  download: { click: "#csv" }
- goto: "{{ inputs.base }}/files/upload"
- id: sent
  upload: { selector: "#file", file: "{{ steps.pdf }}" }
- click: { selector: "#send" }
- extract: { selector: "#received", fields: { name: "#name", type: "#type", bytes: "#bytes", sha256: "#sha256" }, save_as: pdf }
- goto: "{{ inputs.base }}/files/upload"
- upload: { selector: "input[type=file]", file: "{{ steps.csv.file }}" }
- click: { selector: "#send" }
- extract: { selector: "#received", fields: { name: "#name", bytes: "#bytes", sha256: "#sha256" }, save_as: csv }
- set: { sent: "{{ steps.sent }}" }
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome, JSON.stringify(result)).toBe("finished");
      expect(result.data).toEqual({
        // The page sees the name the file came with.
        pdf: {
          name: "Q3 report.pdf",
          type: "application/pdf",
          bytes: String(REPORT_PDF.length),
          sha256: pdf.sha256,
        },
        csv: { name: "report.csv", bytes: String(REPORT_CSV.length), sha256: csv.sha256 },
        sent: { file: "Q3_report.pdf", name: "Q3 report.pdf", ...pdf },
      });
    } finally {
      await test.dispose();
    }
  }, 60_000);

  it("fails naming the run's files when asked for one it does not have", async () => {
    const test = await testBrowser({ video: false });
    try {
      const result = await runSkill(
        `
- goto: "{{ inputs.base }}/files"
- download: { click: "#csv" }
- goto: "{{ inputs.base }}/files/upload"
- upload: { selector: "#file", file: report.xlsx }
`,
        { base: site.base, browser: test.browser.access, files: test.files },
      );
      expect(result.outcome === "failed" && result.error).toEqual({
        step: "step 4 (upload)",
        message: 'no run file named "report.xlsx"; this run has: report.csv',
      });
      const notAFile = await runSkill(`- upload: { selector: "#file", file: "{{ [1, 2] }}" }\n`, {
        base: site.base,
        browser: test.browser.access,
        files: test.files,
      });
      expect(notAFile.outcome === "failed" && notAFile.error.message).toBe(
        `upload's file must be a run file's name or an object with a "file" key (such as a download's result), not a list`,
      );
    } finally {
      await test.dispose();
    }
  }, 60_000);
});
