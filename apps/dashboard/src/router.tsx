import {
  type AnchorHTMLAttributes,
  type MouseEvent,
  useCallback,
  useEffect,
  useSyncExternalStore,
} from "react";

/** Where the server serves the dashboard; every address of the app is under it. */
export const BASE = "/ui";

const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};
window.addEventListener("popstate", notify);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The app's own address: the path below /ui (always starting with /) and the query. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const href = useSyncExternalStore(
    subscribe,
    () => window.location.pathname + window.location.search,
  );
  const url = new URL(href, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || "/" : "/";
  return { path, search: url.searchParams };
}

/** The app's address of a run. */
export function runPath(id: string): string {
  return `/runs/${encodeURIComponent(id)}`;
}

/** The app's address of a skill. */
export function skillPath(id: string): string {
  return `/skills/${encodeURIComponent(id)}`;
}

/** Goes to `to` (an app path such as `/runs/run_…`), adding to the history unless `replace`. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = BASE + to;
  if (options.replace) window.history.replaceState(null, "", target);
  else window.history.pushState(null, "", target);
  notify();
}

/** A link within the app: a real <a href> (opens in a new tab, copies), followed in place. */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const { to, onClick, ...rest } = props;
  const follow = useCallback(
    (event: MouseEvent<HTMLAnchorElement>) => {
      onClick?.(event);
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(to);
    },
    [to, onClick],
  );
  return <a href={BASE + to} onClick={follow} {...rest} />;
}

/** Sets the document's title (what a screen reader announces on a new page). */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Skillrun`;
  }, [title]);
}
