import type * as Oidc from "openid-client";
import { ApiError } from "../../errors.js";
import type { OidcConfig } from "./config.js";

/** What the browser keeps between start and callback (an HTTP-only cookie): binds the callback to this browser. */
export interface PendingLogin {
  state: string;
  nonce: string;
  verifier: string;
}

// Loaded at the first SSO sign-in: a server without SSO never loads the client.
const client = () => import("openid-client");

/**
 * The OpenID Connect authorization code flow with PKCE against one provider, found by issuer discovery (once,
 * at the first sign-in; a failed discovery is tried again at the next one).
 */
export class OidcFlow {
  private discovered?: Promise<Oidc.Configuration>;

  constructor(readonly cfg: OidcConfig) {}

  private async configuration(): Promise<Oidc.Configuration> {
    this.discovered ??= this.discover().catch((e: unknown) => {
      this.discovered = undefined;
      throw e;
    });
    return this.discovered;
  }

  private async discover(): Promise<Oidc.Configuration> {
    const c = await client();
    const auth =
      this.cfg.tokenEndpointAuth === "none"
        ? c.None()
        : this.cfg.tokenEndpointAuth === "client_secret_post"
          ? c.ClientSecretPost(this.cfg.clientSecret!)
          : c.ClientSecretBasic(this.cfg.clientSecret!);
    try {
      return await c.discovery(new URL(this.cfg.issuer), this.cfg.clientId, undefined, auth, {
        ...(this.cfg.allowInsecureIssuer ? { execute: [c.allowInsecureRequests] } : {}),
      });
    } catch (e) {
      throw new ApiError(
        502,
        "oidc.discovery_failed",
        `could not read the OpenID configuration of ${this.cfg.issuer} (auth.oidc.issuer): ${(e as Error).message}`,
      );
    }
  }

  /** Where to send the browser, and what it must bring back. */
  async start(): Promise<{ url: URL; pending: PendingLogin }> {
    const c = await client();
    const config = await this.configuration();
    const pending = { state: c.randomState(), nonce: c.randomNonce(), verifier: c.randomPKCECodeVerifier() };
    const url = c.buildAuthorizationUrl(config, {
      redirect_uri: this.cfg.redirectUrl,
      scope: this.cfg.scopes.join(" "),
      code_challenge: await c.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: "S256",
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url, pending };
  }

  /**
   * Exchanges the code (state, nonce, PKCE and the ID token's signature, issuer and audience checked by the
   * client library) and returns the ID token's claims with userinfo's added; a provider's error is a 403.
   */
  async finish(callbackUrl: URL, pending: PendingLogin): Promise<{ issuer: string; claims: Record<string, unknown> }> {
    const c = await client();
    const config = await this.configuration();
    const providerError = callbackUrl.searchParams.get("error");
    if (providerError)
      throw new ApiError(
        403,
        "oidc.provider_refused",
        `the provider refused the sign-in: ${providerError} ${callbackUrl.searchParams.get("error_description") ?? ""}`.trim(),
      );
    let tokens: Awaited<ReturnType<typeof c.authorizationCodeGrant>>;
    try {
      tokens = await c.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      throw new ApiError(403, "oidc.callback_refused", `the sign-in could not be completed: ${(e as Error).message}`);
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new ApiError(403, "oidc.no_id_token", "the provider sent no ID token");
    // Providers put email and groups in the ID token or only in userinfo; the subject must agree (the library checks).
    let info = {};
    if (config.serverMetadata().userinfo_endpoint)
      info = await c.fetchUserInfo(config, tokens.access_token, idClaims.sub).catch((e: unknown) => {
        throw new ApiError(
          403,
          "oidc.userinfo_failed",
          `the provider's userinfo could not be read: ${(e as Error).message}`,
        );
      });
    return { issuer: config.serverMetadata().issuer, claims: { ...info, ...idClaims } };
  }
}
