/** What `extract` reads of each match: its text, an attribute, or an object of fields. */
export interface ReadSpec {
  attribute?: string;
  fields?: Record<string, { selector: string; attribute?: string }>;
}

/** The little of a DOM element this reads (the engine is compiled without the DOM's types). */
interface PageElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
  textContent: string | null;
  innerText?: string;
}

/**
 * Runs in the page, so it uses nothing from outside itself. Text is `innerText` trimmed, as a
 * person sees it; a field or attribute that is
 * not there is null.
 */
export function readMatches(elements: PageElement[], spec: ReadSpec): unknown[] {
  const read = (element: PageElement | null, attribute: string | undefined): string | null => {
    if (element === null) return null;
    if (attribute !== undefined) return element.getAttribute(attribute);
    // `innerText` is what a person sees; only HTML elements have it.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
    return (element.innerText ?? element.textContent ?? "").trim();
  };
  return elements.map((element) => {
    if (spec.fields === undefined) return read(element, spec.attribute);
    const row: Record<string, string | null> = {};
    for (const [name, field] of Object.entries(spec.fields)) {
      row[name] = read(element.querySelector(field.selector), field.attribute);
    }
    return row;
  });
}
