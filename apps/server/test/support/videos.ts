/** A small "video": WebM's EBML magic, then every byte value (so any text decoding would show). */
export const VIDEO_BYTES = Uint8Array.from([
  0x1a,
  0x45,
  0xdf,
  0xa3,
  ...Array.from({ length: 256 }, (_, i) => 255 - i),
]);

/** `url` with some query parameters replaced (or removed, for `undefined`). */
export function withQuery(url: string, changes: Record<string, string | undefined>): string {
  const changed = new URL(url);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) changed.searchParams.delete(name);
    else changed.searchParams.set(name, value);
  }
  return changed.toString();
}

/** A signature of the right shape that differs from `signature` in its first character. */
export function tampered(signature: string): string {
  return `${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
}
