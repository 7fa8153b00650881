import type { FormOutcome, FormRecord, FormStore } from "../forms.js";
import type { PgDatabase } from "./database.js";
import { fromJson, json } from "./json.js";

interface Row {
  id: string;
  token: string;
  run_id: string;
  node_key: string;
  node_id: string;
  node_title: string;
  content: string;
  inputs: string;
  actions: string;
  defaults: string;
  created_at: number;
  expires_at: number | null;
  status: FormRecord["status"];
  submission: string | null;
  closed_at: number | null;
}

const COLUMNS =
  "id, token, run_id, node_key, node_id, node_title, content, inputs, actions, defaults, created_at, expires_at, status, submission, closed_at";

const toForm = (r: Row): FormRecord => {
  const submission = fromJson<FormRecord["submission"]>(r.submission);
  return {
    id: r.id,
    token: r.token,
    runId: r.run_id,
    key: r.node_key,
    nodeId: r.node_id,
    nodeTitle: json(r.node_title),
    content: json(r.content),
    inputs: json(r.inputs),
    actions: json(r.actions),
    defaults: json(r.defaults),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    status: r.status,
    ...(submission ? { submission } : {}),
    ...(r.closed_at !== null ? { closedAt: r.closed_at } : {}),
  };
};

/** Human-input forms of paused runs on PostgreSQL; the conditional UPDATE makes the first close win. */
export class PostgresFormStore implements FormStore {
  constructor(private readonly db: PgDatabase) {}

  private async one(where: string, args: unknown[]): Promise<FormRecord | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM human_forms WHERE ${where}`, args);
    return row ? toForm(row) : undefined;
  }

  async createForm(f: FormRecord): Promise<FormRecord> {
    // One form per paused node of a run: a resumed run asking again gets the form it already has.
    await this.db.query(
      `INSERT INTO human_forms (${COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) ON CONFLICT DO NOTHING`,
      [
        f.id,
        f.token,
        f.runId,
        f.key,
        f.nodeId,
        JSON.stringify(f.nodeTitle),
        JSON.stringify(f.content),
        JSON.stringify(f.inputs),
        JSON.stringify(f.actions),
        JSON.stringify(f.defaults),
        f.createdAt,
        f.expiresAt,
        f.status,
        f.submission ? JSON.stringify(f.submission) : null,
        f.closedAt ?? null,
      ],
    );
    return (await this.formOf(f.runId, f.key))!;
  }
  getForm(id: string): Promise<FormRecord | undefined> {
    return this.one("id = $1", [id]);
  }
  formByToken(token: string): Promise<FormRecord | undefined> {
    return this.one("token = $1", [token]);
  }
  formOf(runId: string, key: string): Promise<FormRecord | undefined> {
    return this.one("run_id = $1 AND node_key = $2", [runId, key]);
  }
  async runForms(runId: string): Promise<FormRecord[]> {
    return (
      await this.db.query<Row>(`SELECT ${COLUMNS} FROM human_forms WHERE run_id = $1 ORDER BY created_at, id`, [runId])
    ).map(toForm);
  }
  async waitingForms(): Promise<FormRecord[]> {
    return (
      await this.db.query<Row>(`SELECT ${COLUMNS} FROM human_forms WHERE status = 'waiting' ORDER BY created_at, id`)
    ).map(toForm);
  }
  async closeForm(id: string, outcome: FormOutcome, at: number): Promise<FormRecord | undefined> {
    const submission = outcome.status === "submitted" ? JSON.stringify(outcome.submission) : null;
    await this.db.query(
      "UPDATE human_forms SET status = $2, submission = $3, closed_at = $4 WHERE id = $1 AND status = 'waiting'",
      [id, outcome.status, submission, at],
    );
    return this.getForm(id);
  }
}
