import { defineStepKind } from "../../steps/step-kind.js";
import type { TabInfo } from "../browser-access.js";
import { browserOf, ELEMENT_TIMEOUT_MS, stepPage } from "./step-page.js";
import { tabDetail } from "./switch-tab.js";

export type CloseTabAction = null;

/**
 * Closes the current tab (without running its beforeunload) and makes the tab that was current
 * before it current again; the run's last tab cannot be closed. Gives `{ index, tabs, url }` of
 * the tab now current.
 */
export const closeTabStep = defineStepKind<CloseTabAction>({
  schema: { type: "null", description: "Nothing: `close_tab:` closes the current tab." },
  browser: true,
  async run(_action, context): Promise<TabInfo> {
    const access = browserOf(context);
    await stepPage(context, ELEMENT_TIMEOUT_MS);
    const tab = await access.closeTab();
    context.detail(tabDetail(tab));
    return tab;
  },
});
