import { TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { parseSkillDefinition } from "../definition/parse.js";
import { executeSkill } from "../run/execute-skill.js";
import type { EngineEvent } from "../run/types.js";

const KEY = "JBSWY3DPEHPK3PXP";
const URI = `otpauth://totp/Shop:alice?secret=${KEY}&issuer=Shop&digits=8&period=60&algorithm=SHA256`;
// A fixed moment, so that the code the test computes is the one the run computes.
const NOW = Date.parse("2026-11-26T12:00:07Z");

async function run(steps: string, inputs: Record<string, unknown> = {}) {
  const definition = parseSkillDefinition(
    `id: s\nname: s\ninputs: [{ json_key: expected, data_type: string, required: false }]\nsteps:\n${steps}`,
    "s.yaml",
  );
  const events: EngineEvent[] = [];
  const result = await executeSkill({
    definition,
    inputs,
    run: { id: "run_1", skill_id: "s" },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    secrets: { otp: KEY, otp_uri: URI, broken: "not base32!" },
    now: () => NOW,
  });
  return { result, events };
}

describe("$totp", () => {
  it("gives the current RFC 6238 code of a base32 key, masked wherever the run reports it", async () => {
    const expected = new TOTP({ secret: KEY }).generate({ timestamp: NOW });
    const { result, events } = await run(
      `  - log: "code {{ $totp(secrets.otp) }}"
  - set: { code: "{{ $totp(secrets.otp) }}", matches: "{{ $totp(secrets.otp) = inputs.expected }}" }`,
      { expected },
    );
    expect(result).toMatchObject({ outcome: "finished", data: { code: "***", matches: true } });
    const log = events.find((event) => event.type === "log");
    expect(log).toMatchObject({ message: "code ***" });
    expect(JSON.stringify(events)).not.toContain(expected);
  });

  it("follows an otpauth:// URI's digits, period and algorithm", async () => {
    const expected = new TOTP({
      secret: KEY,
      digits: 8,
      period: 60,
      algorithm: "SHA256",
    }).generate({ timestamp: NOW });
    const { result } = await run(
      `  - set: { matches: "{{ $totp(secrets.otp_uri) = inputs.expected }}", digits: "{{ $length($totp(secrets.otp_uri)) }}" }`,
      { expected },
    );
    expect(result).toMatchObject({ outcome: "finished", data: { matches: true, digits: 8 } });
  });

  it("fails the step, saying why, for a secret that is no one-time-code key", async () => {
    const { result } = await run(`  - set: { code: "{{ $totp(secrets.broken) }}" }`);
    expect(result).toMatchObject({
      outcome: "failed",
      error: {
        message: expect.stringContaining(
          "$totp: the secret is neither base32 nor an otpauth:// URI",
        ),
      },
    });
  });
});
