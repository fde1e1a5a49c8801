// Printable ASCII: what a quoted-string of RFC 6266's `filename` can carry as it is.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * `Content-Disposition: attachment` for a file called `name` (RFC 6266): `filename="…"` with `"`
 * and `\` escaped; a name beyond printable ASCII also as `filename*=UTF-8''…` (RFC 5987), with an
 * ASCII stand-in in `filename` for clients that read only that.
 */
export function attachment(name: string): string {
  if (PRINTABLE_ASCII.test(name)) return `attachment; filename=${quoted(name)}`;
  const fallback = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]/g, "_");
  return `attachment; filename=${quoted(fallback)}; filename*=UTF-8''${extValue(name)}`;
}

function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, "\\$&")}"`;
}

// RFC 5987's attr-char is encodeURIComponent's unreserved set without `'`, `(`, `)` and `*`.
function extValue(text: string): string {
  // A lone surrogate cannot be encoded as UTF-8: it becomes U+FFFD, as in any UTF-8 encoder.
  const wellFormed = text.replace(/\p{Surrogate}/gu, "\ufffd");
  return encodeURIComponent(wellFormed).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
