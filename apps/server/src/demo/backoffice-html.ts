import type { Response } from "express";

/** Where the back office is served; its links are absolute, like the demo shop's. */
export const BACKOFFICE = "/demo/backoffice";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe inside HTML elements and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

export interface BackofficePage {
  title: string;
  /** HTML, already escaped where it holds data. */
  body: string;
  /** Whether the menu (invoices, upload, sign out) is shown. */
  signedIn: boolean;
}

/** Sends a whole back office page with the given status. */
export function sendPage(res: Response, status: number, page: BackofficePage): void {
  res.status(status).type("html").send(renderPage(page));
}

/** Sends a page that says what went wrong in a `.error` element. */
export function sendErrorPage(
  res: Response,
  status: number,
  title: string,
  message: string,
  signedIn: boolean,
): void {
  const back = signedIn
    ? `<p><a href="${BACKOFFICE}/invoices">Back to the invoices</a></p>`
    : `<p><a href="${BACKOFFICE}/login">Sign in</a></p>`;
  sendPage(res, status, {
    title,
    signedIn,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
${back}`,
  });
}

function renderPage({ title, body, signedIn }: BackofficePage): string {
  const menu = signedIn
    ? `<nav class="menu">
    <a href="${BACKOFFICE}/invoices">Invoices</a>
    <a href="${BACKOFFICE}/upload">Upload</a>
    <a id="logout" href="${BACKOFFICE}/logout">Sign out</a>
  </nav>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escapeHtml(title)} · Skillrun demo back office</title>
  <link rel="stylesheet" href="/demo/demo.css">
</head>
<body>
  <header>
    <p class="brand">Skillrun demo back office</p>
  ${menu}
  </header>
  <main class="backoffice">
${body}
  </main>
</body>
</html>
`;
}
