import { useState } from "react";

/**
 * Where the list is in its pages: the cursors of the pages before this one, to go back, the
 * last being the current page's own (none: the first page).
 */
export function useCursors() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors.at(-1),
    hasNewer: cursors.length > 0,
    newer: () => setCursors(cursors.slice(0, -1)),
    older: (next: string) => setCursors([...cursors, next]),
    reset: () => setCursors([]),
  };
}
