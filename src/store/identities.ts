/**
 * Identities: which account an outside sign-in (an OIDC issuer's subject) is. The pair (issuer, subject) is
 * what an OpenID provider promises to keep stable for a person; the email it sends may change, so a returning
 * person is found by this pair, and the email is used only the first time (to link an existing account).
 * Implemented in memory, on SQLite and on PostgreSQL (migration 19).
 */
export interface IdentityRecord {
  issuer: string;
  subject: string;
  userId: string;
  /** The email the provider sent when the identity was linked (shown to owners; not used to find it). */
  email: string;
  createdAt: number;
}

export interface IdentityStore {
  get(issuer: string, subject: string): Promise<IdentityRecord | undefined>;
  /**
   * Links the identity to the account; the first link wins (a second call for the pair returns the stored
   * record, whoever it names), so two callbacks racing for one new person cannot split them in two.
   */
  link(i: Omit<IdentityRecord, "createdAt">): Promise<IdentityRecord>;
  ofUser(userId: string): Promise<IdentityRecord[]>;
}
