/**
 * Text as the database can store it and give back: a NUL (which PostgreSQL's text refuses, the
 * whole statement failing) and half of a UTF-16 surrogate pair (which UTF-8 cannot encode) each
 * become U+FFFD. Every string a run-state statement binds passes through here (direct-sql.ts), so
 * what a run logs, saves or fails with is stored on either database whatever text a page, a
 * response or an input held: a run always ends with its real outcome and log. JSON columns are
 * unaffected (JSON.stringify escapes both), so data keeps them exactly.
 */
export function storableText(text: string): string {
  return isStorableText(text) ? text : text.replace(UNSTORABLE_ALL, "\uFFFD");
}

/**
 * Whether the database can store the text as it is and give the same text back: no NUL, which
 * PostgreSQL's text cannot hold (the query fails), and no half of a UTF-16 surrogate pair without
 * its other half, which UTF-8 cannot encode (it would silently become U+FFFD).
 */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

// In a Unicode pattern a surrogate pair is one code point, so \p{Cs} matches only a lone half.
const UNSTORABLE = /[\0\p{Cs}]/u;
const UNSTORABLE_ALL = /[\0\p{Cs}]/gu;
