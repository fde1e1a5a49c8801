import { distance } from "fastest-levenshtein";

/**
 * Past this length a name gets no suggestion: real names that are mistyped are short, and the
 * cost of comparing two names grows with the product of their lengths.
 */
const MAX_SUGGESTED_LENGTH = 64;
/** At most this many candidates are compared for one name; a definition names far fewer. */
const MAX_CANDIDATES = 500;

/**
 * The name among `candidates` nearest to `written` when it is near enough to be what was meant,
 * for "did you mean …?". Near enough: at most max(2, a third of the written name's length)
 * edits apart (`usernme` → `username`, `input` → `inputs`), and fewer edits than the longer
 * name has letters, so `a` never suggests `b`. Ties go to the candidate listed first.
 *
 * Bounded for hostile definitions: no suggestion for names longer than MAX_SUGGESTED_LENGTH,
 * candidates whose length alone rules them out are not compared, and at most MAX_CANDIDATES are.
 */
export function nearestName(written: string, candidates: Iterable<string>): string | undefined {
  if (written.length > MAX_SUGGESTED_LENGTH) return undefined;
  const allowed = Math.max(2, Math.floor(written.length / 3));
  let best: { name: string; edits: number } | undefined;
  let compared = 0;
  for (const name of candidates) {
    // The edit distance is at least the difference in length.
    if (Math.abs(name.length - written.length) > allowed) continue;
    compared += 1;
    if (compared > MAX_CANDIDATES) break;
    const edits = distance(written, name);
    if (edits > allowed || edits >= Math.max(written.length, name.length)) continue;
    if (best === undefined || edits < best.edits) best = { name, edits };
  }
  return best?.name;
}
