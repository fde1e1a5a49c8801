import { Secret, TOTP, URI } from "otpauth";

/**
 * `$totp(secret)`: the current RFC 6238 code of a one-time-code secret, given as its base32 key
 * (`JBSWY3DPEHPK3PXP`, spaces and case ignored) or as an `otpauth://totp/…` URI, whose digits,
 * period and algorithm it follows (6 digits, 30 s, SHA-1 otherwise). `now`: epoch ms.
 */
export function totpCode(secret: unknown, now: number): string {
  if (typeof secret !== "string" || secret.trim() === "") {
    throw new Error(
      "$totp needs a secret: a base32 key or an otpauth:// URI, e.g. $totp(secrets.otp)",
    );
  }
  return totpOf(secret.trim()).generate({ timestamp: now });
}

function totpOf(secret: string): TOTP {
  if (secret.startsWith("otpauth://")) {
    let parsed: ReturnType<typeof URI.parse>;
    try {
      parsed = URI.parse(secret);
    } catch {
      throw new Error("$totp: the otpauth:// URI does not parse");
    }
    if (!(parsed instanceof TOTP)) throw new Error("$totp: the otpauth:// URI is not a totp one");
    return parsed;
  }
  const base32 = secret.replace(/\s+/g, "").toUpperCase();
  if (!/^[A-Z2-7]+=*$/.test(base32)) {
    throw new Error("$totp: the secret is neither base32 nor an otpauth:// URI");
  }
  return new TOTP({ secret: Secret.fromBase32(base32) });
}
