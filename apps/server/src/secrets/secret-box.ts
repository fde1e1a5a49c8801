import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

/** A sealed value that cannot be opened; the message says why, never what it holds. */
export class SecretUnreadable extends Error {}

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals and opens values with AES-256-GCM under the secrets key: a random 12-byte IV per value,
 * the 16-byte authentication tag, and a context (whose value this is: owner and name, or run and
 * input) as additional authenticated data, so a sealed value copied to another row does not open.
 * A sealed value is `v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts; the key id (a
 * fingerprint of the key, which reveals nothing of it) tells "another key" from "altered".
 *
 * The key is loaded on first use (`load()` forces it, for a start-up check), so commands that
 * never touch a secret never read or make the key file.
 */
export class SecretBox {
  private key: Buffer | undefined;
  private id: string | undefined;
  private digestKey: Buffer | undefined;

  constructor(private readonly loadKey: () => Buffer) {}

  /** Loads the key now: a missing or unusable key stops a start-up instead of a later request. */
  load(): void {
    if (this.key !== undefined) return;
    const key = this.loadKey();
    this.id = createHmac("sha256", key)
      .update("skillrun secrets key id")
      .digest("hex")
      .slice(0, 16);
    this.key = key;
  }

  /** The fingerprint of the key: 16 hex digits. */
  get keyId(): string {
    this.load();
    return this.id as string;
  }

  /** `plaintext` sealed for `context`. */
  seal(plaintext: string, context: readonly string[]): string {
    this.load();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key as Buffer, iv, {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(aadOf(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, this.keyId, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /**
   * A keyed digest of `text` for `context` (hex HMAC-SHA256 under a key derived from the secrets
   * key): equal for equal text and context, and, unlike a plain hash, no help in guessing the
   * text (a short PIN, say) to whoever reads it without the key.
   */
  digest(text: string, context: readonly string[]): string {
    this.load();
    this.digestKey ??= createHmac("sha256", this.key as Buffer)
      .update("skillrun digest key")
      .digest();
    return createHmac("sha256", this.digestKey)
      .update(aadOf(context))
      .update("\n")
      .update(text, "utf8")
      .digest("hex");
  }

  /** The plaintext of a value sealed for `context`; SecretUnreadable when it does not open. */
  open(sealed: string, context: readonly string[]): string {
    this.load();
    const [version, keyId, iv, ciphertext, tag, ...rest] = sealed.split(".");
    if (version !== VERSION || rest.length > 0 || ciphertext === undefined || tag === undefined) {
      throw new SecretUnreadable("it is not a value Skillrun sealed");
    }
    if (keyId !== this.keyId) {
      throw new SecretUnreadable(
        `it was sealed under another key (key id ${keyId}; this server's is ${this.keyId}): every server and worker sharing a database needs the same SECRETS_KEY`,
      );
    }
    const ivBytes = Buffer.from(iv ?? "", "base64url");
    const tagBytes = Buffer.from(tag, "base64url");
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
      throw new SecretUnreadable("it is not a value Skillrun sealed");
    }
    const decipher = createDecipheriv("aes-256-gcm", this.key as Buffer, ivBytes, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(aadOf(context));
    decipher.setAuthTag(tagBytes);
    try {
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SecretUnreadable(
        "it does not authenticate: the stored value was altered, or copied from another secret or run",
      );
    }
  }
}

// JSON of the parts: unambiguous whatever characters an owner or name holds.
function aadOf(context: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify(context), "utf8");
}
