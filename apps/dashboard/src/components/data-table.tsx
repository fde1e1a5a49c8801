import type { ReactNode } from "react";

/**
 * A table with a caption for screen readers and a header per column; `actions` adds a last
 * column of buttons whose header only screen readers hear. It scrolls sideways on its own on a
 * narrow screen, not the page.
 */
export function DataTable(props: {
  className: string;
  caption: string;
  headers: string[];
  actions?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={props.className}>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.headers.map((header) => (
              <th key={header} scope="col">
                {header}
              </th>
            ))}
            {props.actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
