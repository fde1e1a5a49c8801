/**
 * Cuts the rows of a keyset query made with `take: limit + 1` into one page: the extra row only
 * tells whether another page follows, and `last` is where that page starts after.
 */
export function keysetPage<Row>(rows: Row[], limit: number): { page: Row[]; last?: Row } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return rows.length > limit && last !== undefined ? { page, last } : { page };
}
