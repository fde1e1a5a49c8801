import { TAB_CHOICE_PATTERN } from "../../definition/patterns.js";
import { defineStepKind } from "../../steps/step-kind.js";
import type { TabInfo } from "../browser-access.js";
import { browserOf, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";

export type SwitchTabAction = "last" | number | string;

/**
 * Makes a tab the current one, which the steps after it act on and the video shows: `last` (the
 * newest, e.g. the popup a click opened) or its index from 0, in the order the tabs opened.
 * Waits for a tab the browser is still opening, and for tab <index> to open (10 s, or the step's
 * timeout). Gives `{ index, tabs, url }`.
 */
export const switchTabStep = defineStepKind<SwitchTabAction>({
  schema: {
    type: ["string", "integer"],
    minimum: 0,
    pattern: TAB_CHOICE_PATTERN.source,
    description: "last (the newest tab), or a tab's index from 0 in the order tabs opened.",
  },
  browser: true,
  async run(action, context): Promise<TabInfo> {
    const which = tabChoice(typeof action === "string" ? await context.resolve(action) : action);
    const access = browserOf(context);
    const { timeout } = await stepPage(context, ELEMENT_TIMEOUT_MS);
    const tab = await access.switchTab(which, timeout, context.signal);
    context.detail(tabDetail(tab));
    return tab;
  },
});

/** `last` or an index, from what a template gave (an index may come as its digits). */
function tabChoice(value: unknown): "last" | number {
  if (value === "last") return value;
  const index = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof index === "number" && Number.isInteger(index) && index >= 0) return index;
  throw new Error(
    `switch_tab needs last or a tab's index from 0, not ${JSON.stringify(value) ?? "nothing"}`,
  );
}

/** The tab now current, as the detail of a step that changed it: `tab 2 of 3: <url>`. */
export function tabDetail(tab: TabInfo): string {
  return `tab ${tab.index + 1} of ${tab.tabs}: ${tab.url}`;
}
