import type Database from "better-sqlite3";
import type { IdentityRecord, IdentityStore } from "../identities.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS identities (
  issuer TEXT NOT NULL, subject TEXT NOT NULL, user_id TEXT NOT NULL, email TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject));
CREATE INDEX IF NOT EXISTS identities_user ON identities (user_id);
`;

export interface IdentityRow {
  issuer: string;
  subject: string;
  user_id: string;
  email: string;
  created_at: number | string;
}

export const toIdentity = (r: IdentityRow): IdentityRecord => ({
  issuer: r.issuer,
  subject: r.subject,
  userId: r.user_id,
  email: r.email,
  createdAt: Number(r.created_at),
});

/** Identities on the shared SQLite connection. */
export class SqliteIdentityStore implements IdentityStore {
  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  async get(issuer: string, subject: string): Promise<IdentityRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM identities WHERE issuer = ? AND subject = ?").get(issuer, subject) as
      | IdentityRow
      | undefined;
    return r && toIdentity(r);
  }

  async link(i: Omit<IdentityRecord, "createdAt">): Promise<IdentityRecord> {
    this.db
      .prepare(
        "INSERT INTO identities (issuer, subject, user_id, email, created_at) VALUES (?,?,?,?,?) ON CONFLICT DO NOTHING",
      )
      .run(i.issuer, i.subject, i.userId, i.email, Date.now());
    return (await this.get(i.issuer, i.subject))!;
  }

  async ofUser(userId: string): Promise<IdentityRecord[]> {
    const rows = this.db.prepare("SELECT * FROM identities WHERE user_id = ? ORDER BY created_at, rowid").all(userId);
    return (rows as IdentityRow[]).map(toIdentity);
  }
}
