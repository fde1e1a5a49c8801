import express, { type RequestHandler, type Router } from "express";
import { TOTP } from "otpauth";
import type { Clock } from "../domain/clock.js";
import { BACKOFFICE, escapeHtml, sendPage } from "./backoffice-html.js";
import {
  clearSessionCookie,
  type Session,
  type SessionStore,
  sessionIdOf,
  setSessionCookie,
} from "./backoffice-sessions.js";

/** The one demo account, documented in docs/skills.md: the back office is public practice. */
export const DEMO_USERNAME = "demo";
export const DEMO_PASSWORD = "demo-password";
/**
 * The demo account's one-time-code key (base32), as an authenticator app is given it: after the
 * password the back office asks for the current code. Public, as the password is.
 */
export const DEMO_TOTP_KEY = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

/** The session of a signed-in request, put there by `requireSession`. */
export function sessionOf(res: express.Response): Session | undefined {
  return res.locals.backofficeSession as Session | undefined;
}

/**
 * GET/POST /login, GET/POST /code and GET /logout. Codes are checked on `clock`, the one the
 * sessions expire by, so that a test moving it moves both (as a run's `$totp` follows it).
 */
export function loginRoutes(router: Router, sessions: SessionStore, clock: Clock): void {
  router.get("/login", (_req, res) => {
    sendLoginPage(res, 200, "", null);
  });

  // A login form is two short fields: anything bigger is refused (413) before it is read.
  router.post(
    "/login",
    express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }),
    (req, res) => {
      const body: unknown = req.body;
      const username = fieldOf(body, "username");
      const password = fieldOf(body, "password");
      // The account is public, so comparing in constant time would protect nothing.
      if (username !== DEMO_USERNAME || password !== DEMO_PASSWORD) {
        sendLoginPage(res, 401, username, "Wrong username or password");
        return;
      }
      // Half signed in: the one-time code comes next.
      setSessionCookie(req, res, sessions.create(username));
      res.redirect(303, `${BACKOFFICE}/code`);
    },
  );

  router.get("/code", (req, res) => {
    if (sessions.find(sessionIdOf(req)) === undefined) {
      res.redirect(303, `${BACKOFFICE}/login`);
      return;
    }
    sendCodePage(res, 200, null);
  });

  router.post(
    "/code",
    express.urlencoded({ extended: false, limit: "1kb", parameterLimit: 5 }),
    (req, res) => {
      const pending = sessions.find(sessionIdOf(req));
      if (pending === undefined) {
        res.redirect(303, `${BACKOFFICE}/login`);
        return;
      }
      if (!codeIsCurrent(fieldOf(req.body, "code"), clock.now().getTime())) {
        sendCodePage(res, 401, "Wrong code");
        return;
      }
      sessions.delete(pending.id);
      setSessionCookie(req, res, sessions.create(pending.username, true));
      res.redirect(303, `${BACKOFFICE}/invoices`);
    },
  );

  // A link, so a skill can click it; being signed out by someone else's link harms nobody here.
  router.get("/logout", (req, res) => {
    sessions.delete(sessionIdOf(req));
    clearSessionCookie(req, res);
    res.redirect(303, `${BACKOFFICE}/login`);
  });
}

/** Lets a request with a live session through; sends any other to the login page. */
export function requireSession(sessions: SessionStore): RequestHandler {
  return (req, res, next) => {
    const session = sessions.find(sessionIdOf(req));
    if (session === undefined) {
      res.redirect(303, `${BACKOFFICE}/login`);
      return;
    }
    if (!session.verified) {
      res.redirect(303, `${BACKOFFICE}/code`);
      return;
    }
    res.locals.backofficeSession = session;
    next();
  };
}

/** The code of DEMO_TOTP_KEY at `now` (epoch ms), or the one before (a clock a little behind). */
function codeIsCurrent(code: string, now: number): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const totp = new TOTP({ secret: DEMO_TOTP_KEY });
  return totp.validate({ token: code, timestamp: now, window: 1 }) !== null;
}

function sendCodePage(res: express.Response, status: number, error: string | null): void {
  const message = error === null ? "" : `<p class="error" role="alert">${escapeHtml(error)}</p>`;
  sendPage(res, status, {
    title: "One-time code",
    signedIn: false,
    body: `<h1>One-time code</h1>
<p>The code your authenticator app shows for the demo account (its key: <code>${DEMO_TOTP_KEY}</code>).</p>
${message}
<form id="second-factor" method="post" action="${BACKOFFICE}/code">
  <label>Code <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code"></label>
  <button type="submit">Verify</button>
</form>`,
  });
}

function fieldOf(body: unknown, name: string): string {
  if (typeof body !== "object" || body === null) return "";
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : "";
}

function sendLoginPage(
  res: express.Response,
  status: number,
  username: string,
  error: string | null,
): void {
  const message = error === null ? "" : `<p class="error" role="alert">${escapeHtml(error)}</p>`;
  sendPage(res, status, {
    title: "Sign in",
    signedIn: false,
    body: `<h1>Sign in</h1>
<p>Demo account: user <code>${DEMO_USERNAME}</code>, password <code>${DEMO_PASSWORD}</code>, then a one-time code of the key <code>${DEMO_TOTP_KEY}</code>.</p>
${message}
<form id="login" method="post" action="${BACKOFFICE}/login">
  <label>Username <input id="username" name="username" autocomplete="username" value="${escapeHtml(username)}"></label>
  <label>Password <input id="password" name="password" type="password" autocomplete="current-password"></label>
  <button type="submit">Sign in</button>
</form>`,
  });
}
