// OIDC SSO over real HTTP against a real OpenID provider (oidc-provider on loopback): discovery, the code flow
// with PKCE, state/nonce/verifier checks, code replay, email-domain and group mapping, linking, refusals.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OidcConfig } from "../../src/server/auth/oidc/config.js";
import { oidcSettings } from "../../src/server/auth/oidc/config.js";
import { createMember } from "../../src/server/auth/users.js";
import { startOidcProvider, type TestProvider } from "../support/oidc-provider.js";
import { WEFT_BIN } from "../support/weft-bin.js";
import { startTestServer, type TestServer } from "./helpers.js";

/** Cookies by origin, as far as these two servers need (no expiry, no paths beyond what they set). */
class Jar {
  private readonly byOrigin = new Map<string, Map<string, string>>();
  take(url: string, res: Response): void {
    const m = this.byOrigin.get(new URL(url).origin) ?? new Map<string, string>();
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const i = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, i).trim(), pair!.slice(i + 1)];
      const gone = value === "" || attrs.some((a) => /max-age=0\b/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (gone) m.delete(name);
      else m.set(name, value);
    }
    this.byOrigin.set(new URL(url).origin, m);
  }
  header(url: string): string {
    return [...(this.byOrigin.get(new URL(url).origin) ?? [])].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }
  set(url: string, name: string, value: string): void {
    this.byOrigin.get(new URL(url).origin)!.set(name, value);
  }
}

async function go(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, {
    ...init,
    redirect: "manual",
    headers: { ...(init.headers as object), cookie: jar.header(url) },
  });
  jar.take(url, res);
  return res;
}

/** Fills the provider's development pages (login, then consent) as a person would, until it sends the browser back. */
async function throughProvider(jar: Jar, authUrl: string, login: string, callbackPrefix: string): Promise<string> {
  let url = authUrl;
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(callbackPrefix)) return url;
    const res = await go(jar, url);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, url).href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form on ${url} (${res.status}): ${html.slice(0, 300)}`);
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
      form.set(m[1]!, m[2]!);
    if (/name="login"/.test(html)) {
      form.set("login", login);
      form.set("password", "any password (development login page)");
    }
    const posted = await go(jar, new URL(action, url).href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(posted.status).toBeGreaterThanOrEqual(300);
    url = new URL(posted.headers.get("location")!, url).href;
  }
  throw new Error("the provider never sent the browser back");
}

let weft: TestServer;
let idp: TestProvider;
let cfg: OidcConfig;

beforeAll(async () => {
  // The settings as weft.config.json would hold them; issuer and redirect are filled once both ports are known
  // (discovery happens at the first sign-in, so the server reads them then).
  cfg = oidcSettings(
    {
      issuer: "http://127.0.0.1:1",
      clientId: "weft-test",
      clientSecret: "x",
      redirectUrl: "http://127.0.0.1:1/api/auth/oidc/callback",
      allowInsecureIssuer: true,
      scopes: ["openid", "email", "profile", "groups"],
      mapping: [
        { group: "weft-admins", workspace: "default", role: "admin" },
        { emailDomain: "example.com", workspace: "default", role: "editor" },
      ],
    },
    {},
  )!;
  weft = await startTestServer({ host: "127.0.0.1", oidc: cfg });
  cfg.redirectUrl = `${weft.url}/api/auth/oidc/callback`;
  idp = await startOidcProvider(cfg.redirectUrl);
  cfg.issuer = idp.issuer;
  cfg.clientId = idp.clientId;
  cfg.clientSecret = idp.clientSecret;
}, 60_000);
afterAll(async () => {
  await weft?.stop();
  await idp?.stop();
});

/** Start at Weft, sign in at the provider as `login`, come back: Weft's final answer and the browser's jar. */
async function ssoLogin(login: string, tamper?: (jar: Jar) => void) {
  const jar = new Jar();
  const start = await go(jar, `${weft.url}/api/auth/oidc/start`);
  expect(start.status).toBe(302);
  const authUrl = start.headers.get("location")!;
  const back = await throughProvider(jar, authUrl, login, cfg.redirectUrl);
  tamper?.(jar);
  const res = await go(jar, back);
  return { res, jar, authUrl: new URL(authUrl), back };
}
const refusalOf = (res: Response) => {
  expect(res.status).toBe(302);
  const q = new URL(res.headers.get("location")!, "http://x").searchParams;
  return { code: q.get("sso_error"), message: q.get("sso_message") ?? "" };
};
const me = (jar: Jar) => fetch(`${weft.url}/api/auth/me`, { headers: { cookie: jar.header(weft.url) } });

describe("OIDC sign-in against a real provider", () => {
  it("discovers the provider, sends code + PKCE (S256) + state + nonce, and signs a mapped person in", async () => {
    idp.people.set("ann", { email: "Ann@Example.com", email_verified: true });
    const { res, jar, authUrl } = await ssoLogin("ann");
    expect(authUrl.origin).toBe(idp.issuer);
    expect(authUrl.pathname).toBe("/auth");
    const q = authUrl.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")).toBeTruthy();
    expect(q.get("nonce")).toBeTruthy();
    expect(q.get("scope")).toBe("openid email profile groups");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    expect(jar.get(weft.url, "weft_session")).toBeTruthy();
    const who = await me(jar);
    expect(who.status).toBe(200);
    expect(await who.json()).toMatchObject({ kind: "session", user: { email: "ann@example.com" }, role: "editor" });
    const user = await weft.deps.stores.teams.getUserByEmail("ann@example.com");
    expect(await weft.deps.stores.identities.ofUser(user!.id)).toMatchObject([{ issuer: idp.issuer, subject: "ann" }]);
  }, 60_000);

  it("maps a groups claim to its role, and a returning person by subject even when the email changed", async () => {
    idp.people.set("gus", { email: "gus@elsewhere.org", email_verified: true, groups: ["staff", "weft-admins"] });
    const first = await ssoLogin("gus");
    const a = (await (await me(first.jar)).json()) as { user: { id: string }; role: string };
    expect(a.role).toBe("admin");
    idp.people.set("gus", { email: "gus@renamed.org", email_verified: true, groups: ["weft-admins"] });
    const again = await ssoLogin("gus");
    const b = (await (await me(again.jar)).json()) as { user: { id: string; email: string } };
    expect(b.user.id).toBe(a.user.id);
  }, 60_000);

  it("links a verified email to the existing password account instead of making a second one", async () => {
    const { user } = await createMember(weft.deps.stores, {
      email: "pat@example.com",
      password: "pat's long password",
      role: "runner",
    });
    idp.people.set("pat-sub", { email: "pat@example.com", email_verified: true });
    const { jar } = await ssoLogin("pat-sub");
    // The membership an owner gave is kept (runner), not replaced by the mapping's editor.
    expect(await (await me(jar)).json()).toMatchObject({ user: { id: user.id }, role: "runner" });
  }, 60_000);

  it("refuses a person no mapping rule matches, saying why, and makes no account", async () => {
    idp.people.set("eve", { email: "eve@outsider.net", email_verified: true, groups: ["staff"] });
    const { res, jar } = await ssoLogin("eve");
    const r = refusalOf(res);
    expect(r.code).toBe("oidc.no_mapping");
    expect(r.message).toContain("eve@outsider.net");
    expect(r.message).toContain("auth.oidc.mapping");
    expect(jar.get(weft.url, "weft_session")).toBeUndefined();
    expect(await weft.deps.stores.teams.getUserByEmail("eve@outsider.net")).toBeUndefined();
  }, 60_000);

  it("does not map or link an email the provider did not verify", async () => {
    idp.people.set("mal", { email: "mallory@example.com", email_verified: false });
    const r = refusalOf((await ssoLogin("mal")).res);
    expect(r.code).toBe("oidc.no_mapping");
    expect(r.message).toContain("did not say the email is verified");
  }, 60_000);

  it("refuses a callback whose state is not the one this browser started with, or with no start at all", async () => {
    idp.people.set("ann", { email: "ann@example.com", email_verified: true });
    const wrong = await ssoLogin("ann", (jar) => {
      const [, nonce, verifier] = jar.get(weft.url, "weft_oidc")!.split(".");
      jar.set(weft.url, "weft_oidc", `someone-elses-state.${nonce}.${verifier}`);
    });
    expect(refusalOf(wrong.res).code).toBe("oidc.state_mismatch");
    expect(wrong.jar.get(weft.url, "weft_session")).toBeUndefined();
    // A callback link opened in a browser that never started (a login CSRF): no cookie, refused.
    const stranger = await fetch(wrong.back, { redirect: "manual" });
    expect(refusalOf(stranger).code).toBe("oidc.state_mismatch");
  }, 60_000);

  it("refuses a wrong PKCE verifier, a wrong nonce, and a code used twice", async () => {
    idp.people.set("ann", { email: "ann@example.com", email_verified: true });
    const badVerifier = await ssoLogin("ann", (jar) => {
      const [state, nonce] = jar.get(weft.url, "weft_oidc")!.split(".");
      jar.set(weft.url, "weft_oidc", `${state}.${nonce}.${"v".repeat(43)}`);
    });
    expect(refusalOf(badVerifier.res).code).toBe("oidc.callback_refused");
    const badNonce = await ssoLogin("ann", (jar) => {
      const [state, , verifier] = jar.get(weft.url, "weft_oidc")!.split(".");
      jar.set(weft.url, "weft_oidc", `${state}.another-nonce.${verifier}`);
    });
    expect(refusalOf(badNonce.res).code).toBe("oidc.callback_refused");
    let pending = "";
    const ok = await ssoLogin("ann", (jar) => (pending = jar.get(weft.url, "weft_oidc")!));
    expect(ok.res.headers.get("location")).toBe("/");
    const replay = await fetch(ok.back, { redirect: "manual", headers: { cookie: `weft_oidc=${pending}` } });
    expect(refusalOf(replay).code).toBe("oidc.callback_refused");
  }, 60_000);

  it("tells the studio SSO is offered", async () => {
    const res = await fetch(`${weft.url}/api/auth/options`);
    expect(await res.json()).toEqual({
      password: true,
      sso: { label: "Sign in with SSO", start: "/api/auth/oidc/start" },
    });
  });
});

describe("without SSO set up", () => {
  it("offers none, and /api/auth/oidc/start says what to configure", async () => {
    const plain = await startTestServer({ host: "127.0.0.1" });
    try {
      expect(await (await fetch(`${plain.url}/api/auth/options`)).json()).toEqual({ password: true, sso: null });
      const res = await fetch(`${plain.url}/api/auth/oidc/start`, { redirect: "manual" });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("oidc.not_configured");
      expect(body.error.message).toContain("auth.oidc");
    } finally {
      await plain.stop();
    }
  });

  it("a bad auth.oidc is a typed error naming the setting; the environment fills what the file leaves out", () => {
    expect(() => oidcSettings({ issuer: "not a url" }, {})).toThrow(
      expect.objectContaining({ code: "config.invalid_oidc" }),
    );
    expect(() =>
      oidcSettings(
        {
          issuer: "https://idp.example",
          clientId: "c",
          clientSecret: "s",
          redirectUrl: "https://w.example/api/auth/oidc/callback",
          mapping: [{ workspace: "default", role: "viewer" }],
        },
        {},
      ),
    ).toThrow(/exactly one of emailDomain or group/);
    const fromEnv = oidcSettings(
      { mapping: [{ emailDomain: "example.com", workspace: "default", role: "viewer" }] },
      {
        WEFT_OIDC_ISSUER: "https://idp.example",
        WEFT_OIDC_CLIENT_ID: "c",
        WEFT_OIDC_CLIENT_SECRET: "s",
        WEFT_OIDC_REDIRECT_URL: "https://w.example/api/auth/oidc/callback",
      },
    );
    expect(fromEnv).toMatchObject({
      issuer: "https://idp.example",
      clientSecret: "s",
      tokenEndpointAuth: "client_secret_basic",
    });
    expect(oidcSettings(undefined, {})).toBeUndefined();
  });
});

describe("weft serve with auth.oidc", () => {
  it("refuses to start on a bad setting, naming it (exit 2), before opening the database", () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-oidc-cli-"));
    try {
      writeFileSync(
        join(dir, "weft.config.json"),
        JSON.stringify({ auth: { oidc: { issuer: "https://idp.example", clientId: "c" } } }),
      );
      const r = spawnSync(
        WEFT_BIN,
        ["serve", "--config", join(dir, "weft.config.json"), "--db", join(dir, "w.db"), "--port", "0"],
        {
          encoding: "utf8",
          env: { ...process.env, WEFT_OIDC_ISSUER: "", WEFT_OIDC_CLIENT_SECRET: "", WEFT_OIDC_REDIRECT_URL: "" },
          timeout: 60_000,
        },
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("config.invalid_oidc");
      expect(r.stderr).toContain("auth.oidc.");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
