import { describe, expect, it } from "vitest";
import { VideoUrlSigner } from "./signed-url.js";

const SECRET = "unit-test-video-signing-secret-0123456789";
const T0 = Date.parse("2026-11-22T10:00:00.900Z");

function signerAt(ms: () => number, secret = SECRET) {
  return new VideoUrlSigner(secret, 60, { now: () => new Date(ms()) });
}

describe("VideoUrlSigner", () => {
  it("signs a run id with an expiry TTL seconds from now, as 43 base64url characters", () => {
    const signed = signerAt(() => T0).sign("run_a");
    expect(signed.expires).toBe(Math.floor(T0 / 1000) + 60);
    expect(signed.signature).toMatch(/^[\w-]{43}$/);
  });

  it("accepts its own signature until the expiry and reports it expired from then on", () => {
    let now = T0;
    const signer = signerAt(() => now);
    const { expires, signature } = signer.sign("run_a");
    expect(signer.verify("run_a", expires, signature)).toBe("valid");
    now = expires * 1000 - 1;
    expect(signer.verify("run_a", expires, signature)).toBe("valid");
    now = expires * 1000;
    expect(signer.verify("run_a", expires, signature)).toBe("expired");
  });

  it("rejects a signature for another run, another expiry, another secret or of another length", () => {
    const signer = signerAt(() => T0);
    const { expires, signature } = signer.sign("run_a");
    expect(signer.verify("run_b", expires, signature)).toBe("invalid");
    expect(signer.verify("run_a", expires + 1, signature)).toBe("invalid");
    expect(signerAt(() => T0, `${SECRET}x`).verify("run_a", expires, signature)).toBe("invalid");
    expect(signer.verify("run_a", expires, signature.slice(1))).toBe("invalid");
    expect(signer.verify("run_a", expires, "")).toBe("invalid");
  });

  it("builds the absolute address of GET /v1/run/{id}/video on the base URL", () => {
    const url = signerAt(() => T0).urlFor("https://example.com/base", "run_a");
    expect(url).toMatch(
      /^https:\/\/example\.com\/base\/v1\/run\/run_a\/video\?expires=\d+&signature=[\w-]{43}$/,
    );
  });
});
