import type { StepContext } from "../steps/step-context.js";

/** The Cookie header for an address, from the run's browser; undefined when it holds none. */
export type CookiesFor = (url: string) => Promise<string | undefined>;

/**
 * The cookies the run's browser holds for an address (domain, path and `Secure` as the browser
 * itself would send them), for a request a step makes outside the page; undefined when no
 * browser step has run yet, as there is then no cookie to send.
 */
export function pageCookies(context: StepContext): CookiesFor | undefined {
  const access = context.browser;
  if (access === undefined || !access.started()) return undefined;
  return async (url) => {
    const page = await access.page();
    const cookies = await page.context().cookies(url);
    if (cookies.length === 0) return undefined;
    return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
  };
}

/** `cookies: browser` of an http step: the page's cookies, or a failure saying why there are none. */
export function browserCookies(context: StepContext, target: string): CookiesFor {
  if (context.browser === undefined) {
    throw new Error(`${target}: cookies: browser needs a browser, and this runner has none`);
  }
  const cookies = pageCookies(context);
  if (cookies === undefined) {
    throw new Error(
      `${target}: cookies: browser sends the browser's cookies, but no browser step has run yet; sign in with browser steps (goto, fill, click) before this step`,
    );
  }
  return cookies;
}
