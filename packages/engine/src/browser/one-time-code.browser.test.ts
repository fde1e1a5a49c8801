import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import { executeSkill } from "../run/execute-skill.js";
import type { EngineEvent } from "../run/types.js";
import { type FixtureSite, startFixtureSite } from "./test-support/fixture-site.js";
import { FIXTURE_TOTP_KEY } from "./test-support/one-time-code-pages.js";
import { testBrowser } from "./test-support/test-browser.js";

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const definition = parseSkillDefinition(
  `id: s
name: S
inputs: [{ json_key: base, data_type: string }]
steps:
  - goto: "{{ inputs.base }}/second-factor"
  - fill: { selector: "#code", value: "{{ $totp(secrets.otp) }}" }
  - click: { selector: "#verify" }
  - timeout: 3s
    assert_text: { selector: "#result", text: Signed in }`,
  "s.yaml",
);

async function signIn(otp: string) {
  const test = await testBrowser({ video: false });
  const events: EngineEvent[] = [];
  try {
    const result = await executeSkill({
      definition,
      inputs: { base: site.base },
      run: { id: "run_1", skill_id: "s" },
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
      browser: test.browser.access,
      network: LOCAL_TEST_NETWORK,
      secrets: { otp },
    });
    return { result, events };
  } finally {
    await test.dispose();
  }
}

describe("a site's second factor", { timeout: 60_000 }, () => {
  it("accepts the code $totp gives", async () => {
    const { result, events } = await signIn(FIXTURE_TOTP_KEY);
    expect(result).toMatchObject({ outcome: "finished" });
    expect(events.some((event) => event.type === "step_failed")).toBe(false);
  });

  it("refuses the code of another key: the site's check is what the test relies on", async () => {
    const { result } = await signIn("JBSWY3DPEHPK3PXP");
    expect(result).toMatchObject({ outcome: "failed", error: { step: "step 4 (assert_text)" } });
  });
});
