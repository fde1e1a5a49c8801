/** The `cursor` of a `Link: <…>; rel="next"` header, if the answer has a next page. */
export function nextCursor(response: Response): string | undefined {
  const header = response.headers.get("Link");
  if (!header) return undefined;
  for (const link of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(link);
    if (!match?.[1] || !/;\s*rel="?([^";]*\s)?next[\s";]/i.test(`${match[2]};`)) continue;
    return new URL(match[1], window.location.origin).searchParams.get("cursor") ?? undefined;
  }
  return undefined;
}
