import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/**
 * What axe-core finds against WCAG 2 A and AA on the page as it is now: each problem with the
 * elements it concerns. axe is evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy does not govern, so the policy stays as served.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: AxeRunner }).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.map(
      (violation) =>
        `${violation.id} (${violation.help}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
  });
}

interface AxeRunner {
  run(
    context: Document,
    options: { runOnly: { type: string; values: string[] } },
  ): Promise<{
    violations: { id: string; help: string; nodes: { target: string[] }[] }[];
  }>;
}
