import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { SessionRecord, TeamStore } from "../../store/teams.js";

export const SESSION_COOKIE = "weft_session";
/** Readable by the studio's script, which echoes it in `X-CSRF-Token` (double submit, checked against the session). */
export const CSRF_COOKIE = "weft_csrf";
export const CSRF_HEADER = "x-csrf-token";
export const SESSION_TTL_MS = 7 * 24 * 3600_000;

export const hashToken = (t: string) => createHash("sha256").update(t).digest("hex");

const secure = (c: Context) => new URL(c.req.url).protocol === "https:";

/** Store a new session and set its cookies; the token itself is never stored. */
export async function startSession(c: Context, teams: TeamStore, userId: string, workspaceId: string) {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const now = Date.now();
  const s: SessionRecord = {
    tokenHash: hashToken(token),
    userId,
    workspaceId,
    csrfToken,
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  };
  await teams.createSession(s);
  const maxAge = Math.floor(SESSION_TTL_MS / 1000);
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Lax", path: "/", secure: secure(c), maxAge });
  setCookie(c, CSRF_COOKIE, csrfToken, { httpOnly: false, sameSite: "Strict", path: "/", secure: secure(c), maxAge });
  return s;
}

export const sessionToken = (c: Context) => getCookie(c, SESSION_COOKIE);

export function clearSessionCookies(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
  deleteCookie(c, CSRF_COOKIE, { path: "/" });
}

/** The header matches the session's token (compared in constant time). */
export function csrfMatches(c: Context, s: SessionRecord): boolean {
  const got = Buffer.from(c.req.header(CSRF_HEADER) ?? "");
  const want = Buffer.from(s.csrfToken);
  return got.length === want.length && timingSafeEqual(got, want);
}
