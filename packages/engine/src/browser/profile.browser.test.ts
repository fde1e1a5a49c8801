import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { LOCAL_TEST_NETWORK } from "../network/test-support/local-network.js";
import { executeSkill } from "../run/execute-skill.js";
import type { StorageState } from "./browser-snapshot.js";
import { profileStateOf } from "./profile-state.js";
import { LOGIN_PASSWORD, type LoginSite, startLoginSite } from "./test-support/login-site.js";
import { testBrowser } from "./test-support/test-browser.js";

let site: LoginSite;
beforeAll(async () => {
  site = await startLoginSite();
});
afterAll(async () => {
  await site?.close();
});

// Signs in when the account page sends it to the form; says whether it had to.
const definition = parseSkillDefinition(
  `id: s
name: S
inputs: [{ json_key: base, data_type: string }]
profile: { name: acme, save: on_success }
steps:
  - goto: "{{ inputs.base }}/account"
  - id: form
    exists: { selector: "#login" }
  - if: "{{ steps.form }}"
    fill: { selector: "#user", value: ann }
  - if: "{{ steps.form }}"
    fill: { selector: "#password", value: "${LOGIN_PASSWORD}" }
  - if: "{{ steps.form }}"
    click: { selector: "#sign-in" }
  - id: who
    extract: { selector: "#who" }
  - set: { signed_in_by_form: "{{ steps.form }}", who: "{{ steps.who }}" }`,
  "s.yaml",
);

/** Runs the skill in a browser of its own that starts with `state`; its storage at the end. */
async function run(state?: StorageState) {
  const test = await testBrowser({ video: false, ...(state && { storageState: state }) });
  try {
    const result = await executeSkill({
      definition,
      inputs: { base: site.base },
      run: { id: "run_1", skill_id: "s" },
      signal: new AbortController().signal,
      onEvent: () => {},
      browser: test.browser.access,
      network: LOCAL_TEST_NETWORK,
    });
    const snapshot = await test.browser.access.snapshot();
    return { result, saved: snapshot && profileStateOf(snapshot, state) };
  } finally {
    await test.dispose();
  }
}

describe("a browser that starts with a profile's storage", { timeout: 60_000 }, () => {
  it("reaches the signed-in page without the form once a run signed in and its state was kept", async () => {
    const first = await run();
    expect(first.result).toMatchObject({
      outcome: "finished",
      data: { signed_in_by_form: true, who: "Signed in as ann" },
    });
    const saved = first.saved as StorageState;
    expect(saved.cookies.map((cookie) => [cookie.name, cookie.httpOnly])).toEqual([
      ["session", true],
    ]);
    expect(saved.origins).toEqual([
      { origin: site.base, localStorage: [{ name: "last_seen", value: "account" }] },
    ]);
    expect(site.signIns()).toBe(1);

    const second = await run(saved);
    expect(second.result).toMatchObject({
      outcome: "finished",
      data: { signed_in_by_form: false, who: "Signed in as ann" },
    });
    expect(site.signIns()).toBe(1);

    // Without the state, a new browser meets the form again: the state is what signs it in.
    const blank = await run();
    expect(blank.result).toMatchObject({ data: { signed_in_by_form: true } });
  });

  it("fails the first browser step, naming no value, when Chromium refuses a cookie of the state", async () => {
    const cookie = {
      name: "a;b",
      value: "refused-cookie-value",
      domain: "127.0.0.1",
      path: "/",
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: "Lax" as const,
    };
    const { result } = await run({ cookies: [cookie], origins: [] });
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        message:
          "could not start the browser with its stored state (a browser profile's or a checkpoint's): Chromium refused one of its cookies",
      },
    });
    expect(JSON.stringify(result)).not.toContain("refused-cookie-value");
  });

  it("keeps the localStorage of origins no tab shows at the end", () => {
    const started: StorageState = {
      cookies: [],
      origins: [
        { origin: "https://elsewhere.example", localStorage: [{ name: "k", value: "v" }] },
        { origin: "https://shown.example", localStorage: [{ name: "old", value: "1" }] },
      ],
    };
    const shown = { origin: "https://shown.example", localStorage: [{ name: "new", value: "2" }] };
    const state = profileStateOf(
      { tabs: ["https://shown.example/"], current: 0, cookies: [], origins: [shown] },
      started,
    );
    expect(state.origins).toEqual([shown, started.origins[0]]);
  });
});
