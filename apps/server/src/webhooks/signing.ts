import { createHmac, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/**
 * A new endpoint's signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes
 * in base64 (the bytes are the Standard Webhooks key).
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * The headers that sign one attempt of a delivery: `Autotab-Signature`, the origin's scheme (hex
 * HMAC-SHA256 of the raw body keyed with the secret's whole text, as the origin's receivers
 * check it), and the Standard Webhooks trio, signed by the maintained `standardwebhooks`
 * package over `<id>.<timestamp>.<body>`.
 */
export function signatureHeaders(
  secret: string,
  deliveryId: string,
  at: Date,
  body: string,
): Record<string, string> {
  return {
    "Autotab-Signature": autotabSignature(secret, body),
    "webhook-id": deliveryId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(deliveryId, at, body),
  };
}

/** Hex HMAC-SHA256 of `body` keyed with the secret text. */
export function autotabSignature(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}
