import { createHmac, timingSafeEqual } from "node:crypto";
import type { Clock } from "../domain/clock.js";

/** What a signed video address carries besides the run id. */
export interface VideoSignature {
  /** Unix seconds; the address works until then. */
  expires: number;
  /** HMAC-SHA256 of the run id and `expires`, base64url without padding (43 characters). */
  signature: string;
}

export type SignatureVerdict = "valid" | "invalid" | "expired";

/**
 * Signs and checks the expiring addresses of run videos and run files: an HMAC-SHA256 under the
 * server's secret over the run id (and the file's name) and the expiry, so an address works for
 * one run's video, or one of its files, until one moment only.
 */
export class VideoUrlSigner {
  constructor(
    private readonly secret: string,
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
  ) {}

  /** A signature for the run's video, valid for the configured time from now. */
  sign(runId: string): VideoSignature {
    const expires = unixSeconds(this.clock) + this.ttlSeconds;
    return { expires, signature: this.mac(runId, expires) };
  }

  /** The absolute signed address of the run's video on the server at `baseUrl`. */
  urlFor(baseUrl: string, runId: string): string {
    const { expires, signature } = this.sign(runId);
    const query = new URLSearchParams({ expires: String(expires), signature });
    return `${baseUrl}/v1/run/${encodeURIComponent(runId)}/video?${query}`;
  }

  /**
   * Whether `signature` is this server's for the run and expiry (compared in constant time),
   * and if so whether it is still in time.
   */
  verify(runId: string, expires: number, signature: string): SignatureVerdict {
    return this.check(this.mac(runId, expires), signature, expires);
  }

  /** The absolute signed address of the run's file `name` on the server at `baseUrl`. */
  fileUrlFor(baseUrl: string, runId: string, name: string): string {
    const expires = unixSeconds(this.clock) + this.ttlSeconds;
    const signature = this.fileMac(runId, name, expires);
    const query = new URLSearchParams({ expires: String(expires), signature });
    return `${baseUrl}/v1/run/${encodeURIComponent(runId)}/files/${encodeURIComponent(name)}?${query}`;
  }

  /** As `verify`, for the address of the run's file `name`. */
  verifyFile(runId: string, name: string, expires: number, signature: string): SignatureVerdict {
    return this.check(this.fileMac(runId, name, expires), signature, expires);
  }

  /**
   * The absolute signed address of the run's live view, valid for `ttlSeconds` from now (far
   * shorter than a video's: it shows the run as it is, and is asked for again while shown).
   */
  liveUrlFor(baseUrl: string, runId: string, ttlSeconds: number): string {
    const expires = unixSeconds(this.clock) + ttlSeconds;
    const signature = this.liveMac(runId, expires);
    const query = new URLSearchParams({ expires: String(expires), signature });
    return `${baseUrl}/v1/run/${encodeURIComponent(runId)}/live?${query}`;
  }

  /** As `verify`, for the address of the run's live view. */
  verifyLive(runId: string, expires: number, signature: string): SignatureVerdict {
    return this.check(this.liveMac(runId, expires), signature, expires);
  }

  private check(mac: string, signature: string, expires: number): SignatureVerdict {
    const expected = Buffer.from(mac);
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
    return unixSeconds(this.clock) < expires ? "valid" : "expired";
  }

  // The purpose prefix keeps these MACs from being valid for anything else signed with the secret;
  // the expiry is digits only and last, so no two (run id, expiry) pairs give the same text.
  private mac(runId: string, expires: number): string {
    return createHmac("sha256", this.secret)
      .update(`skillrun-video\n${runId}\n${expires}`)
      .digest("base64url");
  }

  // A purpose of its own: a live view's signature is never a video's, nor the reverse.
  private liveMac(runId: string, expires: number): string {
    return createHmac("sha256", this.secret)
      .update(`skillrun-live\n${runId}\n${expires}`)
      .digest("base64url");
  }

  // A purpose of its own: a video's signature is never one of a file's, nor the reverse. Run ids
  // and run file names hold no newline, so the fields cannot run into each other.
  private fileMac(runId: string, name: string, expires: number): string {
    return createHmac("sha256", this.secret)
      .update(`skillrun-run-file\n${runId}\n${name}\n${expires}`)
      .digest("base64url");
  }
}

function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}
