import { act, type ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach } from "vitest";

// Tells React that these tests wrap updates in act(), so it runs them before act() returns.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const mounted = new Set<{ root: Root; container: HTMLElement }>();

afterEach(() => {
  for (const { root, container } of mounted) {
    act(() => root.unmount());
    container.remove();
  }
  mounted.clear();
});

export interface Rendered {
  container: HTMLElement;
  /** Renders `ui` again in the same root, as a parent's new props would. */
  rerender: (ui: ReactNode) => Promise<void>;
}

/** Renders `ui` into a fresh element of the document; unmounted after the test. */
export async function render(ui: ReactNode): Promise<Rendered> {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  mounted.add({ root, container });
  await act(async () => root.render(ui));
  return { container, rerender: (next) => act(async () => root.render(next)) };
}

/** The one element `selector` finds in `within`; throws, naming it, when there is none. */
export function find<E extends Element = HTMLElement>(within: ParentNode, selector: string): E {
  const found = within.querySelector<E>(selector);
  if (!found) throw new Error(`Nothing matches ${selector}`);
  return found;
}

/** The buttons of `within` by their text (their accessible name when it is their text). */
export function button(within: ParentNode, text: string): HTMLButtonElement {
  const found = [...within.querySelectorAll("button")].find(
    (candidate) => candidate.textContent === text,
  );
  if (!found) throw new Error(`No button reads "${text}"`);
  return found;
}

/** Clicks `element` as a person would, and lets React finish what follows. */
export async function click(element: Element): Promise<void> {
  await act(async () => (element as HTMLElement).click());
}

/**
 * Types `value` into a text field, or chooses it in a select: through the element's own value
 * setter, since React reads the change from the event and ignores a value it set itself.
 */
export async function type(
  element: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement,
  value: string,
): Promise<void> {
  const prototype = Object.getPrototypeOf(element) as object;
  const setter = Object.getOwnPropertyDescriptor(prototype, "value")?.set;
  await act(async () => {
    setter?.call(element, value);
    element.dispatchEvent(
      new Event(element.tagName === "SELECT" ? "change" : "input", { bubbles: true }),
    );
  });
}

/** Waits until `check` stops throwing (queries and mutations settle), at most `timeoutMs`. */
export async function waitFor(check: () => void, timeoutMs = 2_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
    }
    await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
  }
}
