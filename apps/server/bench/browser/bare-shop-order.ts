// The demo shop order (skills/demo-shop-order.yaml) as a bare playwright-core script: a new
// Chromium per run, no video, no database, no run process. What Skillrun's browser runs are
// measured against (browser-runs.ts forks it, so that its CPU is counted as its own process tree).
// `tsx bare-shop-order.ts <shop url> <runs> <at a time>`: sends back each run's milliseconds.
import { findChromium } from "@skillrun/engine";
import { chromium } from "playwright-core";

async function orderOnce(shopUrl: string, executablePath: string): Promise<number> {
  const started = performance.now();
  const browser = await chromium.launch({ executablePath, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(shopUrl);
    const plans = await page.$$eval("#products .name", (nodes) => nodes.map((n) => n.textContent));
    if (plans.length === 0) throw new Error("no plans on the shop's page");
    await page.fill("#name", "Ada Lovelace");
    await page.selectOption("#plan", "pro");
    await page.fill("#seats", "3");
    await page.click("button[type=submit]");
    await page.waitForSelector("#receipt");
    const message = await page.textContent("#message");
    if (!message?.includes("Thank you, Ada Lovelace!")) throw new Error(`receipt says ${message}`);
    await page.textContent("#order-number");
    await page.textContent("#total");
    await page.screenshot();
    // The skill's last step: a moment on the receipt.
    await page.waitForTimeout(1_000);
  } finally {
    await browser.close();
  }
  return performance.now() - started;
}

/** `runs` orders, `atATime` of them under way at once; each run's milliseconds, in end order. */
export async function orderBare(shopUrl: string, runs: number, atATime: number): Promise<number[]> {
  const executablePath = findChromium(process.env);
  const times: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < runs) {
      next += 1;
      times.push(await orderOnce(shopUrl, executablePath));
    }
  };
  await Promise.all(Array.from({ length: atATime }, lane));
  return times;
}

if (process.send !== undefined) {
  const [shopUrl, runs, atATime] = process.argv.slice(2) as [string, string, string];
  const times = await orderBare(shopUrl, Number(runs), Number(atATime));
  process.send(times, () => process.exit(0));
}
