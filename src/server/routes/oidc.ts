import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { WeftError } from "../../ir/errors.js";
import { accountFor } from "../auth/oidc/account.js";
import type { OidcConfig } from "../auth/oidc/config.js";
import { OidcFlow, type PendingLogin } from "../auth/oidc/flow.js";
import { mapPerson, personFrom } from "../auth/oidc/mapping.js";
import { startSession } from "../auth/session.js";
import type { ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

/** Between start and callback: state, nonce and PKCE verifier, readable only by the server, for ten minutes. */
const PENDING_COOKIE = "weft_oidc";
const PENDING_PATH = "/api/auth/oidc";

const notConfigured = () =>
  new ApiError(
    404,
    "oidc.not_configured",
    "SSO is not set up on this server: add auth.oidc (issuer, clientId, clientSecret, redirectUrl, mapping) to weft.config.json",
  );

function readPending(c: Context): PendingLogin | undefined {
  const raw = getCookie(c, PENDING_COOKIE);
  if (!raw) return undefined;
  const [state, nonce, verifier] = raw.split(".");
  return state && nonce && verifier ? { state, nonce, verifier } : undefined;
}

/** The studio shows a refusal on its sign-in screen: the browser lands there with the code and message. */
function refusedTo(c: Context, e: unknown) {
  const err = e instanceof WeftError ? e : new ApiError(500, "oidc.failed", "the SSO sign-in failed");
  const q = new URLSearchParams({ sso_error: err.code, sso_message: err.message });
  return c.redirect(`/?${q}`, 302);
}

/** `/api/auth/oidc/start` and `/callback` (public routes), and `/api/auth/options` for the studio's sign-in screen. */
export function oidcRoutes(deps: ServerDeps, cfg: OidcConfig | undefined): Hono {
  const r = new Hono();
  const flow = cfg && new OidcFlow(cfg);

  r.get("/options", (c) =>
    c.json({ password: true, sso: cfg ? { label: cfg.label, start: `${PENDING_PATH}/start` } : null }),
  );

  r.get("/oidc/start", async (c) => {
    if (!flow) throw notConfigured();
    const { url, pending } = await flow.start();
    const secure = new URL(c.req.url).protocol === "https:";
    // Lax, not Strict: the provider's redirect back is a cross-site top-level navigation that must carry it.
    setCookie(c, PENDING_COOKIE, `${pending.state}.${pending.nonce}.${pending.verifier}`, {
      httpOnly: true,
      sameSite: "Lax",
      path: PENDING_PATH,
      secure,
      maxAge: 600,
    });
    return c.redirect(url.href, 302);
  });

  r.get("/oidc/callback", async (c) => {
    try {
      if (!flow || !cfg) throw notConfigured();
      const pending = readPending(c);
      deleteCookie(c, PENDING_COOKIE, { path: PENDING_PATH });
      const state = c.req.query("state");
      if (!pending || state !== pending.state)
        throw new ApiError(
          403,
          "oidc.state_mismatch",
          "this sign-in was not started from this browser (or took over ten minutes); start it again",
        );
      const { issuer, claims } = await flow.finish(new URL(cfg.redirectUrl + new URL(c.req.url).search), pending);
      const person = personFrom(claims, cfg);
      const who = await accountFor(deps.stores, issuer, person, mapPerson(person, cfg));
      await startSession(c, deps.stores.teams, who.userId, who.workspaceId);
      return c.redirect("/", 302);
    } catch (e) {
      return refusedTo(c, e);
    }
  });
  return r;
}
