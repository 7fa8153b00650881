import type { Role } from "../../../store/teams.js";
import { ApiError } from "../../errors.js";
import type { OidcConfig, OidcRule } from "./config.js";

/** What the provider said about the person, from the ID token and userinfo (hostile until checked here). */
export interface OidcPerson {
  subject: string;
  email: string;
  emailVerified: boolean;
  groups: string[];
}

const refuse = (code: string, message: string) => new ApiError(403, code, message);

/** The person from the claims, or a refusal naming the claim that is missing or malformed. */
export function personFrom(claims: Record<string, unknown>, cfg: OidcConfig): OidcPerson {
  const { sub, email, email_verified: verified } = claims;
  if (typeof sub !== "string" || sub === "")
    throw refuse("oidc.no_subject", "the provider sent no subject (sub) claim");
  if (typeof email !== "string" || !/^[^@\s]+@[^@\s]+$/.test(email))
    throw refuse("oidc.no_email", 'the provider sent no email claim; add the "email" scope to auth.oidc.scopes');
  const raw = claims[cfg.groupsClaim];
  const groups = Array.isArray(raw)
    ? raw.filter((g): g is string => typeof g === "string")
    : typeof raw === "string"
      ? [raw]
      : [];
  return {
    subject: sub,
    email: email.trim().toLowerCase(),
    emailVerified: verified === true || verified === "true",
    groups,
  };
}

function matches(rule: OidcRule, p: OidcPerson, cfg: OidcConfig): boolean {
  if (rule.group !== undefined) return p.groups.includes(rule.group);
  const domain = p.email.slice(p.email.lastIndexOf("@") + 1);
  return domain === rule.emailDomain!.toLowerCase() && (p.emailVerified || !cfg.requireVerifiedEmail);
}

/** The first rule the person matches decides workspace and role; none matching is a refusal saying why. */
export function mapPerson(p: OidcPerson, cfg: OidcConfig): { workspaceId: string; role: Role } {
  const rule = cfg.mapping.find((r) => matches(r, p, cfg));
  if (rule) return { workspaceId: rule.workspace, role: rule.role };
  const unverified =
    cfg.requireVerifiedEmail && !p.emailVerified ? " (the provider did not say the email is verified)" : "";
  throw refuse(
    "oidc.no_mapping",
    `${p.email} signed in at the provider, but no auth.oidc.mapping rule gives it a workspace${unverified}; ask an owner to add a rule for its email domain or one of its groups`,
  );
}
