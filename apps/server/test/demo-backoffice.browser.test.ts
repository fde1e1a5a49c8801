import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOTP } from "otpauth";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOTP_KEY } from "../src/demo/backoffice-login.js";
import { launchTestBrowser } from "../src/test-support/test-browser.js";
import { startTestServer, type TestServer } from "../src/test-support/test-server.js";

/**
 * The demo back office in real Chromium, driven by the selectors the example skills use: a wrong
 * password, signing in, every page of the table by a[rel=next], the export downloaded and
 * uploaded again, signing out.
 */

const BASE = "/demo/backoffice";

let server: TestServer;
let browser: Browser;
let scratch: string;

beforeAll(async () => {
  server = await startTestServer();
  scratch = mkdtempSync(join(tmpdir(), "skillrun-backoffice-"));
  browser = await launchTestBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Submits the form the button belongs to and returns the status of the answer. */
async function submit(page: Page, button: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((reply) => reply.request().method() === "POST"),
    page.click(button),
  ]);
  await page.waitForLoadState();
  return response.status();
}

async function signIn(page: Page, password: string): Promise<number> {
  await page.goto(`${server.origin}${BASE}/login`);
  await page.fill("#username", "demo");
  await page.fill("#password", password);
  return submit(page, "button[type=submit]");
}

describe("the back office in Chromium", () => {
  it("refuses a wrong password, then reads every page, exports, uploads and signs out", async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const page = await context.newPage();

      expect(await signIn(page, "not-the-password")).toBe(401);
      expect(await page.textContent(".error")).toBe("Wrong username or password");
      expect(page.url()).toBe(`${server.origin}${BASE}/login`);

      // The POST answers 303; Chromium follows it to the one-time code, then to the table.
      expect(await signIn(page, "demo-password")).toBe(303);
      await page.waitForURL(`${server.origin}${BASE}/code`);
      await page.fill("#code", "000000");
      expect(await submit(page, "button[type=submit]")).toBe(401);
      expect(await page.textContent(".error")).toBe("Wrong code");
      await page.fill("#code", new TOTP({ secret: DEMO_TOTP_KEY }).generate());
      expect(await submit(page, "button[type=submit]")).toBe(303);
      await page.waitForURL(`${server.origin}${BASE}/invoices`);
      // HttpOnly: the page's scripts cannot read the session.
      expect(await page.evaluate("document.cookie")).toBe("");

      const rows: { number: string; amount: string }[] = [];
      let pages = 0;
      for (;;) {
        pages += 1;
        expect(pages).toBeLessThanOrEqual(5);
        rows.push(
          ...(await page.$$eval("table#invoices tbody tr", (trs) =>
            trs.map((tr) => ({
              number: tr.querySelector("td.number")?.textContent ?? "",
              amount: tr.querySelector("td.amount")?.textContent ?? "",
            })),
          )),
        );
        if ((await page.locator("a[rel=next]").count()) === 0) break;
        await page.click("a[rel=next]");
        await page.waitForURL(`${server.origin}${BASE}/invoices?page=${pages + 1}`);
      }
      expect(pages).toBe(5);
      expect(await page.locator("a[rel=prev]").count()).toBe(1);
      expect(rows).toHaveLength(47);
      expect(new Set(rows.map((row) => row.number)).size).toBe(47);
      const cents = rows.reduce((sum, row) => sum + Math.round(Number(row.amount) * 100), 0);
      expect(cents).toBe(1_159_796);

      const [download] = await Promise.all([page.waitForEvent("download"), page.click("a#export")]);
      expect(download.suggestedFilename()).toBe("invoices.csv");
      const saved = join(scratch, "invoices.csv");
      await download.saveAs(saved);
      const csv = readFileSync(saved, "utf8");
      expect(csv.startsWith("number,customer,amount,date\r\n")).toBe(true);

      await page.click("text=Upload");
      await page.setInputFiles("input[type=file]", saved);
      expect(await submit(page, "button[type=submit]")).toBe(200);
      expect(await page.textContent("#upload-result .file-name")).toBe("invoices.csv");
      expect(await page.textContent("#upload-result .file-size")).toBe(
        String(Buffer.byteLength(csv)),
      );
      expect(await page.textContent("#upload-result .line-count")).toBe("48");

      await page.click("#logout");
      await page.waitForURL(`${server.origin}${BASE}/login`);
      await page.goto(`${server.origin}${BASE}/invoices`);
      expect(page.url()).toBe(`${server.origin}${BASE}/login`);
    } finally {
      await context.close();
    }
  }, 60_000);
});
