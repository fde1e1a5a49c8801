/** One link of an HTTP `Link` header (RFC 8288): its target and its parameters. */
export interface Link {
  /** The URI reference between `<` and `>`, as sent (it may be relative). */
  target: string;
  /** Parameters by lower-cased name; the first occurrence of a name wins. */
  params: Record<string, string>;
}

const WHITESPACE = /[ \t]/;
const TOKEN_END = /[ \t;,=]/;

/** Parses a `Link` header value into its links; malformed links are skipped. */
export function parseLinkHeader(header: string): Link[] {
  const links: Link[] = [];
  let i = 0;
  const skipWhitespace = () => {
    while (i < header.length && WHITESPACE.test(header.charAt(i))) i++;
  };
  // Skips to just after the next comma that separates links (outside <…> and quotes).
  const skipLink = () => {
    let quoted = false;
    for (; i < header.length; i++) {
      const c = header.charAt(i);
      if (quoted && c === "\\") i++;
      else if (c === '"') quoted = !quoted;
      else if (!quoted && c === ",") {
        i++;
        return;
      }
    }
  };
  const readToken = () => {
    const start = i;
    while (i < header.length && !TOKEN_END.test(header.charAt(i))) i++;
    return header.slice(start, i);
  };
  const readQuoted = () => {
    let value = "";
    for (i++; i < header.length; i++) {
      const c = header.charAt(i);
      if (c === '"') {
        i++;
        break;
      }
      if (c === "\\") i++;
      value += header.charAt(i);
    }
    return value;
  };

  while (i < header.length) {
    skipWhitespace();
    if (header.charAt(i) === ",") {
      i++;
      continue;
    }
    if (header.charAt(i) !== "<") {
      skipLink();
      continue;
    }
    const close = header.indexOf(">", i);
    if (close < 0) break;
    const link: Link = { target: header.slice(i + 1, close).trim(), params: {} };
    i = close + 1;
    for (;;) {
      skipWhitespace();
      if (header.charAt(i) !== ";") break;
      i++;
      skipWhitespace();
      const name = readToken().toLowerCase();
      skipWhitespace();
      let value = "";
      if (header.charAt(i) === "=") {
        i++;
        skipWhitespace();
        value = header.charAt(i) === '"' ? readQuoted() : readToken();
      }
      if (name && !(name in link.params)) link.params[name] = value;
    }
    links.push(link);
    skipLink();
  }
  return links;
}

/** The target of the first link whose `rel` includes `rel` (case-insensitive), if any. */
export function findLink(header: string | null, rel: string): string | undefined {
  if (!header) return undefined;
  const wanted = rel.toLowerCase();
  return parseLinkHeader(header).find((link) =>
    (link.params.rel ?? "").toLowerCase().split(/\s+/).includes(wanted),
  )?.target;
}
