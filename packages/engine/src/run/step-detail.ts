/** Most characters of a step's `detail` (docs/decisions/0059-step-detail.md). */
export const DETAIL_MAX_CHARS = 200;

/** Most characters of a value's preview inside a detail. */
export const PREVIEW_MAX_CHARS = 120;

/**
 * A step's detail as its events carry it: secret values masked first, so a cut never leaves part
 * of one, then white space runs as one space and at most DETAIL_MAX_CHARS characters.
 */
export function stepDetail(text: string, mask: (text: string) => string): string {
  return cut(mask(text).replace(/\s+/g, " ").trim(), DETAIL_MAX_CHARS);
}

/**
 * A value as a detail shows it: JSON (a string in quotes), secret values masked, at most
 * PREVIEW_MAX_CHARS characters. The whole text is masked before it is cut: masking shortens it,
 * so a cut made first could bring part of a secret inside the bound.
 */
export function previewOf(value: unknown, mask: (text: string) => string): string {
  const text = value === undefined ? "nothing" : (JSON.stringify(value) ?? String(value));
  return cut(mask(text), PREVIEW_MAX_CHARS);
}

/** `text` cut to `max` characters, the last an ellipsis, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept}…`;
}
