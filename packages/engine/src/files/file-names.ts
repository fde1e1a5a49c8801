/** Longest name a run file may have, in characters (extension included). */
export const MAX_FILE_NAME = 120;

/**
 * A name safe to keep as a file in the run's folder and to put in a URL: the last part of any
 * path, only letters, digits, `.`, `_` and `-` (accents dropped, anything else becomes `_`), no
 * leading dot (no hidden files, no `..`), at most MAX_FILE_NAME characters keeping the
 * extension; `file` when nothing is left.
 */
export function sanitiseFileName(wanted: string): string {
  const last = wanted.split(/[/\\]/).pop() ?? "";
  let safe = last
    .normalize("NFKD")
    // Accents come apart from their letters in NFKD: dropping them keeps "Résumé" a "Resume".
    .replace(/\p{M}+/gu, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+/, "")
    .replace(/_+/g, "_");
  if (safe.length > MAX_FILE_NAME) {
    const dot = safe.lastIndexOf(".");
    const extension = dot > 0 && safe.length - dot <= 16 ? safe.slice(dot) : "";
    safe = safe.slice(0, MAX_FILE_NAME - extension.length) + extension;
  }
  return safe === "" ? "file" : safe;
}

/** Whether `name` is exactly what sanitiseFileName keeps: a name a run file can have. */
export function isRunFileName(name: string): boolean {
  return name !== "" && sanitiseFileName(name) === name;
}
