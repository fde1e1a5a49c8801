import type { HTMLAttributes, ReactNode } from "react";

/** One fact of a page's `<dl className="facts">`: its term, and its value with `dd`'s attributes. */
export function Fact(props: { term: string; children: ReactNode } & HTMLAttributes<HTMLElement>) {
  const { term, children, ...dd } = props;
  return (
    <div>
      <dt>{term}</dt>
      <dd {...dd}>{children}</dd>
    </div>
  );
}
