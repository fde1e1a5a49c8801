import { SecretBox } from "../secrets/secret-box.js";
import { parseSecretsKey } from "../secrets/secrets-key.js";

/**
 * The SECRETS_KEY test servers and the `skillrun` processes tests start use unless told
 * otherwise (base64 of 32 bytes): one key, so a worker process opens what a test server sealed.
 */
export const TEST_SECRETS_KEY = "dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=";

/** A SecretBox under TEST_SECRETS_KEY, for repositories a test opens itself. */
export function testSecretBox(): SecretBox {
  return new SecretBox(() => parseSecretsKey(TEST_SECRETS_KEY));
}
