import { z } from "zod";
import { WeftError } from "../../../ir/errors.js";
import { ROLES } from "../../../store/teams.js";

/**
 * weft.config.json `auth.oidc`, overridable by WEFT_OIDC_* variables: one OpenID Connect provider, and which
 * workspace and role a person who signs in through it gets. Rules are tried in order; the first that matches
 * decides. A person no rule matches is refused (no account is made for them).
 */
const Rule = z
  .object({
    /** Matches a verified email at this domain (exactly, case-insensitive: `example.com` not `a.example.com`). */
    emailDomain: z.string().min(1).optional(),
    /** Matches when the groups claim lists this group. */
    group: z.string().min(1).optional(),
    workspace: z.string().min(1),
    role: z.enum(ROLES),
  })
  .strict()
  .refine((r) => (r.emailDomain === undefined) !== (r.group === undefined), {
    message: "each mapping rule names exactly one of emailDomain or group",
  });
export type OidcRule = z.output<typeof Rule>;

export const OidcConfigSchema = z
  .object({
    /** The issuer URL; its /.well-known/openid-configuration is read at the first sign-in. */
    issuer: z.url(),
    clientId: z.string().min(1),
    /** Absent for a public client (PKCE only, `tokenEndpointAuth: "none"`). */
    clientSecret: z.string().min(1).optional(),
    tokenEndpointAuth: z.enum(["client_secret_basic", "client_secret_post", "none"]).default("client_secret_basic"),
    /** This server's callback as registered at the provider: https://HOST/api/auth/oidc/callback. */
    redirectUrl: z.url(),
    scopes: z.array(z.string().min(1)).default(["openid", "email", "profile"]),
    /** The claim (in the ID token or userinfo) that lists the person's groups. */
    groupsClaim: z.string().min(1).default("groups"),
    /** Only a provider that says `email_verified: true` may match emailDomain rules or link an existing account. */
    requireVerifiedEmail: z.boolean().default(true),
    /** Allow an http:// issuer (a provider on loopback in development and tests); never for production. */
    allowInsecureIssuer: z.boolean().default(false),
    /** What the studio's button says. */
    label: z.string().min(1).default("Sign in with SSO"),
    mapping: z.array(Rule).min(1, "add at least one mapping rule, or nobody can sign in through SSO"),
  })
  .strict()
  .refine((c) => c.tokenEndpointAuth === "none" || c.clientSecret !== undefined, {
    message: 'clientSecret is required unless tokenEndpointAuth is "none"',
    path: ["clientSecret"],
  })
  .refine((c) => c.scopes.includes("openid"), { message: "scopes must include openid", path: ["scopes"] });
export type OidcConfig = z.output<typeof OidcConfigSchema>;

/**
 * weft.config.json `auth`: kept loose here because WEFT_OIDC_* may supply what the file leaves out; the whole is
 * checked by oidcSettings once the environment is merged in.
 */
export const AuthConfigSchema = z.object({ oidc: z.record(z.string(), z.unknown()).optional() }).strict();

/** The environment overrides the file's values one by one (a secret need not be in the file). */
export function oidcFromEnv(file: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  const fromEnv = Object.fromEntries(
    (
      [
        ["issuer", env.WEFT_OIDC_ISSUER],
        ["clientId", env.WEFT_OIDC_CLIENT_ID],
        ["clientSecret", env.WEFT_OIDC_CLIENT_SECRET],
        ["redirectUrl", env.WEFT_OIDC_REDIRECT_URL],
      ] as const
    ).filter(([, v]) => v !== undefined && v !== ""),
  );
  if (file === undefined && Object.keys(fromEnv).length === 0) return undefined;
  return { ...((file as object | undefined) ?? {}), ...fromEnv };
}

/** The provider's settings from the file and environment, or undefined when SSO is not set up. */
export function oidcSettings(file: unknown, env: NodeJS.ProcessEnv = process.env): OidcConfig | undefined {
  const raw = oidcFromEnv(file, env);
  if (raw === undefined) return undefined;
  const parsed = OidcConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const iss = parsed.error.issues[0]!;
  const at = ["auth", "oidc", ...iss.path.map(String)].join(".");
  throw new WeftError("config.invalid_oidc", `weft.config.json ${at}: ${iss.message}`, { field: at });
}
