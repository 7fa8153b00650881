import type { IdentityRecord, IdentityStore } from "../identities.js";
import { type IdentityRow, toIdentity } from "../sqlite/identities.js";
import type { PgDatabase } from "./database.js";

/** Identities on PostgreSQL (migration 19). */
export class PostgresIdentityStore implements IdentityStore {
  constructor(private readonly db: PgDatabase) {}

  async get(issuer: string, subject: string): Promise<IdentityRecord | undefined> {
    const [r] = await this.db.query<IdentityRow>("SELECT * FROM identities WHERE issuer = $1 AND subject = $2", [
      issuer,
      subject,
    ]);
    return r && toIdentity(r);
  }

  async link(i: Omit<IdentityRecord, "createdAt">): Promise<IdentityRecord> {
    await this.db.query(
      `INSERT INTO identities (issuer, subject, user_id, email, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING`,
      [i.issuer, i.subject, i.userId, i.email, Date.now()],
    );
    return (await this.get(i.issuer, i.subject))!;
  }

  async ofUser(userId: string): Promise<IdentityRecord[]> {
    const rows = await this.db.query<IdentityRow>(
      "SELECT * FROM identities WHERE user_id = $1 ORDER BY created_at, seq",
      [userId],
    );
    return rows.map(toIdentity);
  }
}
