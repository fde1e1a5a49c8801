import { type RefObject, useEffect, useLayoutEffect, useRef } from "react";

/** How near the bottom (in pixels) still counts as being at it: rounding, a last half row. */
const AT_BOTTOM_PX = 24;

/**
 * Keeps the step log's scrolled list (the `.step-log` inside `around`) at its newest row while
 * `live`, as new rows come (`rows` changes), unless the reader scrolled up from the bottom:
 * then it stays where they put it until they scroll back down. A log that is not live (an ended
 * run's) is left at its top.
 */
export function useFollowLog(around: RefObject<HTMLElement | null>, rows: number, live: boolean) {
  // At the bottom, as far as the reader's own scrolling says (true until they scroll up).
  const following = useRef(true);
  useEffect(() => {
    const box = around.current;
    if (!box) return;
    // Scroll events do not bubble: listen on the way down, for the list however it was rebuilt.
    const onScroll = (event: Event) => {
      const list = event.target as HTMLElement;
      if (!list.classList?.contains("step-log")) return;
      following.current = list.scrollHeight - list.scrollTop - list.clientHeight <= AT_BOTTOM_PX;
    };
    box.addEventListener("scroll", onScroll, { capture: true, passive: true });
    return () => box.removeEventListener("scroll", onScroll, { capture: true });
  }, [around]);
  useLayoutEffect(() => {
    if (!live || !following.current || rows === 0) return;
    const list = around.current?.querySelector<HTMLElement>(".step-log");
    if (list) list.scrollTop = list.scrollHeight;
  }, [around, rows, live]);
}
