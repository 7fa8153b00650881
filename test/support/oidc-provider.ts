// A real OpenID provider (the `oidc-provider` package) on a loopback port, for SSO tests: one confidential
// client for Weft, PKCE required, and people whose claims the test sets. Its development login page (any
// password) is the provider's own UI, which Chromium fills like a person would.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestPerson {
  email: string;
  email_verified?: boolean;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Login name on the provider's page → claims (the login name is the subject). */
  people: Map<string, TestPerson>;
  stop(): Promise<void>;
}

export async function startOidcProvider(redirectUri: string): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, TestPerson>();
  const clientId = "weft-test";
  const clientSecret = "weft-test-secret-0123456789abcdef";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
    cookies: { keys: ["weft-test-cookie-key"] },
    findAccount: async (_ctx, sub) => {
      const p = people.get(sub);
      if (!p) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...p }) };
    },
  });
  // The provider's own warnings about development mode are expected here.
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error("oidc-provider:", err));
  server.on("request", provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
