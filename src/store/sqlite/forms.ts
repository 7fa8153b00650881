import type Database from "better-sqlite3";
import type { FormOutcome, FormRecord, FormStore } from "../forms.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS human_forms (
  id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, run_id TEXT NOT NULL, node_key TEXT NOT NULL,
  node_id TEXT NOT NULL, node_title TEXT NOT NULL, content TEXT NOT NULL, inputs TEXT NOT NULL,
  actions TEXT NOT NULL, defaults TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER,
  status TEXT NOT NULL, submission TEXT, closed_at INTEGER, UNIQUE (run_id, node_key));
CREATE INDEX IF NOT EXISTS human_forms_status ON human_forms(status, created_at);
`;

const toForm = (r: any): FormRecord => ({
  id: r.id,
  token: r.token,
  runId: r.run_id,
  key: r.node_key,
  nodeId: r.node_id,
  nodeTitle: r.node_title,
  content: r.content,
  inputs: JSON.parse(r.inputs),
  actions: JSON.parse(r.actions),
  defaults: JSON.parse(r.defaults),
  createdAt: r.created_at,
  expiresAt: r.expires_at ?? null,
  status: r.status,
  ...(r.submission ? { submission: JSON.parse(r.submission) } : {}),
  ...(r.closed_at !== null && r.closed_at !== undefined ? { closedAt: r.closed_at } : {}),
});

/** Human-input forms on the shared SQLite connection; the conditional UPDATE makes the first close win. */
export class SqliteFormStore implements FormStore {
  private stmts;

  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO human_forms (id, token, run_id, node_key, node_id, node_title, content, inputs, actions, defaults,
           created_at, expires_at, status, submission, closed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING`,
      ),
      byId: db.prepare("SELECT * FROM human_forms WHERE id = ?"),
      byToken: db.prepare("SELECT * FROM human_forms WHERE token = ?"),
      byKey: db.prepare("SELECT * FROM human_forms WHERE run_id = ? AND node_key = ?"),
      byRun: db.prepare("SELECT * FROM human_forms WHERE run_id = ? ORDER BY created_at, id"),
      waiting: db.prepare("SELECT * FROM human_forms WHERE status = 'waiting' ORDER BY created_at, id"),
      close: db.prepare(
        "UPDATE human_forms SET status = ?, submission = ?, closed_at = ? WHERE id = ? AND status = 'waiting'",
      ),
    };
  }

  private one(stmt: Database.Statement, ...args: unknown[]): FormRecord | undefined {
    const r = stmt.get(...args);
    return r ? toForm(r) : undefined;
  }

  async createForm(f: FormRecord): Promise<FormRecord> {
    this.stmts.insert.run(
      f.id,
      f.token,
      f.runId,
      f.key,
      f.nodeId,
      f.nodeTitle,
      f.content,
      JSON.stringify(f.inputs),
      JSON.stringify(f.actions),
      JSON.stringify(f.defaults),
      f.createdAt,
      f.expiresAt,
      f.status,
      f.submission ? JSON.stringify(f.submission) : null,
      f.closedAt ?? null,
    );
    return this.one(this.stmts.byKey, f.runId, f.key)!;
  }
  async getForm(id: string): Promise<FormRecord | undefined> {
    return this.one(this.stmts.byId, id);
  }
  async formByToken(token: string): Promise<FormRecord | undefined> {
    return this.one(this.stmts.byToken, token);
  }
  async formOf(runId: string, key: string): Promise<FormRecord | undefined> {
    return this.one(this.stmts.byKey, runId, key);
  }
  async runForms(runId: string): Promise<FormRecord[]> {
    return this.stmts.byRun.all(runId).map(toForm);
  }
  async waitingForms(): Promise<FormRecord[]> {
    return this.stmts.waiting.all().map(toForm);
  }
  async closeForm(id: string, outcome: FormOutcome, at: number): Promise<FormRecord | undefined> {
    const submission = outcome.status === "submitted" ? JSON.stringify(outcome.submission) : null;
    this.stmts.close.run(outcome.status, submission, at, id);
    return this.one(this.stmts.byId, id);
  }
}
