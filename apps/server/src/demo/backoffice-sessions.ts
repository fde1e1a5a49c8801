import { randomBytes } from "node:crypto";
import type { Request, Response } from "express";
import type { Clock } from "../domain/clock.js";
import { BACKOFFICE } from "./backoffice-html.js";

/** The cookie that carries a back office session's id. */
export const SESSION_COOKIE = "backoffice_session";

/** How long a session lasts after signing in. */
export const SESSION_TTL_MS = 30 * 60 * 1000;

/** At most this many sessions are kept: a flood of logins drops the oldest, memory stays flat. */
export const MAX_SESSIONS = 1000;

export interface Session {
  id: string;
  username: string;
  /** The one-time code was given after the password: the session may see the back office. */
  verified: boolean;
  /** Epoch milliseconds, by the store's clock. */
  expiresAt: number;
}

// 32 random bytes in base64url, as the store makes them; anything else is not looked up.
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The back office's sessions, in memory (one store per app, so per server process). Bounded:
 * a Map keeps insertion order, so the first key is the oldest session.
 */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly clock: Clock) {}

  /**
   * A new session for `username`, with a fresh random id: unverified until its one-time code is
   * given, when `verified` makes a new one (a fresh id, so the half-signed-in one is worth nothing).
   */
  create(username: string, verified = false): Session {
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const session: Session = {
      id: randomBytes(32).toString("base64url"),
      username,
      verified,
      expiresAt: this.clock.now().getTime() + SESSION_TTL_MS,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id; an expired one is forgotten and not returned. */
  find(id: string | undefined): Session | undefined {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.clock.now().getTime()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }
}

/** The session id the request's Cookie header carries, if any. */
export function sessionIdOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const pair of header.split(";")) {
    const equals = pair.indexOf("=");
    if (equals >= 0 && pair.slice(0, equals).trim() === SESSION_COOKIE) {
      return pair.slice(equals + 1).trim();
    }
  }
  return undefined;
}

/** Sets the session cookie: HttpOnly, SameSite=Lax, for the back office's paths only. */
export function setSessionCookie(req: Request, res: Response, session: Session): void {
  res.cookie(SESSION_COOKIE, session.id, {
    httpOnly: true,
    sameSite: "lax",
    // Secure only where the page itself came over HTTPS: the demo is usually plain HTTP on loopback.
    secure: req.secure,
    path: BACKOFFICE,
    maxAge: SESSION_TTL_MS,
  });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: "lax",
    secure: req.secure,
    path: BACKOFFICE,
  });
}
