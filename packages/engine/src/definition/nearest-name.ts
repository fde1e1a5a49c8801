import { distance } from "fastest-levenshtein";

/**
 * The name among `candidates` nearest to `written` when it is near enough to be what was meant,
 * for "did you mean …?". Near enough: at most max(2, a third of the written name's length)
 * edits apart (`usernme` → `username`, `input` → `inputs`), and fewer edits than the longer
 * name has letters, so `a` never suggests `b`. Ties go to the candidate listed first.
 */
export function nearestName(written: string, candidates: Iterable<string>): string | undefined {
  const allowed = Math.max(2, Math.floor(written.length / 3));
  let best: { name: string; edits: number } | undefined;
  for (const name of candidates) {
    const edits = distance(written, name);
    if (edits > allowed || edits >= Math.max(written.length, name.length)) continue;
    if (best === undefined || edits < best.edits) best = { name, edits };
  }
  return best?.name;
}
