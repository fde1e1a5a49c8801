import type { HTMLAttributes, ReactNode } from "react";

/**
 * A part of a page under its own heading, which names it for screen readers: the heading's id
 * is `<name>-title`.
 */
export function Section(
  props: { name: string; title: ReactNode; children?: ReactNode } & HTMLAttributes<HTMLElement>,
) {
  const { name, title, children, ...section } = props;
  return (
    <section aria-labelledby={`${name}-title`} {...section}>
      <h2 id={`${name}-title`}>{title}</h2>
      {children}
    </section>
  );
}
