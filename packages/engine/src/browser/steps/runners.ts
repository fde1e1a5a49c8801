import type { BrowserStepRunners } from "../../run/steps/step-runner.js";
import { assertTextRunner } from "./assert-text.js";
import { clickRunner } from "./click.js";
import { extractRunner } from "./extract.js";
import { fillRunner } from "./fill.js";
import { gotoRunner } from "./goto.js";
import { pressRunner } from "./press.js";
import { screenshotRunner } from "./screenshot.js";
import { selectRunner } from "./select.js";
import type { BrowserAccess } from "./step-page.js";
import { waitForRunner } from "./wait-for.js";

/** A runner for every browser step kind, all driving the page `access` gives. */
export function browserStepRunners(access: BrowserAccess): Required<BrowserStepRunners> {
  return {
    goto: gotoRunner(access),
    click: clickRunner(access),
    fill: fillRunner(access),
    press: pressRunner(access),
    select: selectRunner(access),
    wait_for: waitForRunner(access),
    extract: extractRunner(access),
    screenshot: screenshotRunner(access),
    assert_text: assertTextRunner(access),
  };
}
