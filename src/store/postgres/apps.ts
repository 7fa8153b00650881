import type { Diagnostic } from "../../ir/diagnostics.js";
import type { AppMode, Workflow } from "../../ir/workflow.js";
import { newId } from "../../util/ids.js";
import type {
  ApiKeyRecord,
  AppRecord,
  AppStore,
  ChatMessageRecord,
  CreateAppOptions,
  DraftRecord,
  DraftSave,
  EventBatch,
  KeyGrant,
  MessageExtra,
  NewProposal,
  ProposalRecord,
  ProposalStatus,
  VersionLinks,
  VersionRecord,
  VersionSource,
} from "../apps.js";
import { DEFAULT_KEY_GRANT } from "../apps.js";
import { hashKey, newApiKey } from "../keys.js";
import { PublishedWorkflows } from "../published-workflows.js";
import type { RunEvent } from "../run-events.js";
import { type KeyRow, toKey } from "../sqlite/apps.js";
import type { PgDatabase, Query } from "./database.js";
import { fromJson, json, toJson } from "./json.js";

interface AppRow {
  id: string;
  name: string;
  mode: AppMode;
  description: string;
  created_at: number;
  updated_at: number;
  published_version: number | null;
}

interface DraftRow {
  app_id: string;
  workflow: string;
  diagnostics: string | null;
  revision: number;
  base_version: number;
  updated_at: number;
}

const toDraft = (r: DraftRow): DraftRecord => ({
  appId: r.app_id,
  workflow: json(r.workflow),
  ...(r.diagnostics !== null ? { diagnostics: json(r.diagnostics) } : {}),
  revision: r.revision,
  baseVersion: r.base_version,
  updatedAt: r.updated_at,
});
const DRAFT_COLUMNS = "app_id, workflow, diagnostics, revision, base_version, updated_at";

interface VersionRow {
  app_id: string;
  version: number;
  workflow: string;
  source: VersionSource;
  note: string;
  parent: number | null;
  restores: number | null;
  created_at: number;
}

interface ProposalRow {
  id: string;
  app_id: string;
  base_version: number;
  status: ProposalStatus;
  source: string;
  instruction: string;
  workflow: string;
  diff: string;
  diagnostics: string;
  new_errors: string;
  summary: string;
  applied_version: number | null;
  base_revision: number | null;
  base_workflow: string | null;
  applied_revision: number | null;
  undone_at: number | null;
  tests: string | null;
  created_at: number;
  decided_at: number | null;
}

const toApp = (r: AppRow): AppRecord => ({
  id: r.id,
  name: json(r.name),
  mode: r.mode,
  description: json(r.description),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.published_version !== null ? { publishedVersion: r.published_version } : {}),
});

const toVersion = (r: VersionRow): VersionRecord => versionWith(r, json(r.workflow));
/** A version row with its workflow already parsed (the published one is shared: PublishedWorkflows). */
const versionWith = (r: VersionRow, workflow: VersionRecord["workflow"]): VersionRecord => ({
  appId: r.app_id,
  version: r.version,
  workflow,
  source: r.source,
  note: json(r.note),
  ...(r.parent !== null ? { parent: r.parent } : {}),
  ...(r.restores !== null ? { restores: r.restores } : {}),
  createdAt: r.created_at,
});

const toProposal = (r: ProposalRow): ProposalRecord => ({
  id: r.id,
  appId: r.app_id,
  baseVersion: r.base_version,
  status: r.status,
  source: json(r.source),
  instruction: json(r.instruction),
  workflow: json(r.workflow),
  diff: json(r.diff),
  diagnostics: json(r.diagnostics),
  newErrors: json(r.new_errors),
  summary: json(r.summary),
  ...(r.applied_version !== null ? { appliedVersion: r.applied_version } : {}),
  ...(r.base_revision !== null ? { baseRevision: r.base_revision } : {}),
  ...(r.base_workflow !== null ? { baseWorkflow: json(r.base_workflow) } : {}),
  ...(r.applied_revision !== null ? { appliedRevision: r.applied_revision } : {}),
  ...(r.undone_at !== null ? { undoneAt: r.undone_at } : {}),
  ...(r.tests !== null ? { tests: json(r.tests) } : {}),
  createdAt: r.created_at,
  ...(r.decided_at !== null ? { decidedAt: r.decided_at } : {}),
});

const PROPOSAL_COLUMNS =
  "id, app_id, base_version, status, source, instruction, workflow, diff, diagnostics, new_errors, summary, applied_version, base_revision, base_workflow, applied_revision, undone_at, tests, created_at, decided_at";

const APP_COLUMNS = "id, name, mode, description, created_at, updated_at, published_version";
const VERSION_COLUMNS = "app_id, version, workflow, source, note, parent, restores, created_at";
// Advisory-lock namespace for "the next version number of one app" (any constant distinct from the others).
const VERSION_LOCK = 0x61707076; // "appv"

/**
 * The server's tables on PostgreSQL: apps, workflow versions, API keys (hashes only), chat messages, and run
 * event logs that SSE clients replay from a Last-Event-ID. Several servers may share one database.
 */
export class PostgresAppStore implements AppStore {
  private readonly publishedWorkflows = new PublishedWorkflows();

  constructor(private readonly db: PgDatabase) {}

  private async insertVersion(
    q: Query,
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note: string,
    now: number,
    links: VersionLinks = {},
  ): Promise<VersionRecord> {
    // Two servers adding a version to one app at once take turns here, so neither reuses a number.
    await q("SELECT pg_advisory_xact_lock($1, hashtext($2))", [VERSION_LOCK, appId]);
    // Without a named parent a version is made from the one before it (none for the first).
    const [row] = await q<VersionRow>(
      `INSERT INTO app_versions (${VERSION_COLUMNS})
       SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4, COALESCE($6::integer, MAX(version)), $7, $5
       FROM app_versions WHERE app_id = $1
       RETURNING ${VERSION_COLUMNS}`,
      [appId, JSON.stringify(wf), source, JSON.stringify(note), now, links.parent ?? null, links.restores ?? null],
    );
    return toVersion(row!);
  }

  async createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
    opts: CreateAppOptions = {},
  ): Promise<{ app: AppRecord; version: VersionRecord }> {
    const id = newId();
    const now = Date.now();
    return this.db.tx(async (q) => {
      const [row] = await q<AppRow>(
        `INSERT INTO apps (${APP_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $5, $6) RETURNING ${APP_COLUMNS}`,
        [
          id,
          JSON.stringify(a.name),
          a.mode,
          JSON.stringify(a.description ?? ""),
          now,
          opts.publish === false ? null : 1,
        ],
      );
      const version = await this.insertVersion(q, id, workflow, source, "", now);
      await this.draftFrom(q, version, now);
      return { app: toApp(row!), version };
    });
  }

  async listApps(): Promise<AppRecord[]> {
    return (await this.db.query<AppRow>(`SELECT ${APP_COLUMNS} FROM apps ORDER BY created_at DESC, seq DESC`)).map(
      toApp,
    );
  }

  async getApp(id: string): Promise<AppRecord | undefined> {
    const [row] = await this.db.query<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE id = $1`, [id], "weft_get_app");
    return row ? toApp(row) : undefined;
  }

  async deleteApp(id: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q("DELETE FROM app_versions WHERE app_id = $1", [id]);
      await q("DELETE FROM app_drafts WHERE app_id = $1", [id]);
      await q("DELETE FROM proposals WHERE app_id = $1", [id]);
      await q("DELETE FROM chat_messages WHERE app_id = $1", [id]);
      return (await q("DELETE FROM apps WHERE id = $1 RETURNING id", [id])).length > 0;
    });
  }

  async addVersion(
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note = "",
    links: VersionLinks = {},
  ): Promise<VersionRecord> {
    return this.db.tx((q) => this.addVersionIn(q, appId, wf, source, note, links));
  }

  private async addVersionIn(
    q: Query,
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note: string,
    links: VersionLinks,
  ): Promise<VersionRecord> {
    const now = Date.now();
    const version = await this.insertVersion(q, appId, wf, source, note, now, links);
    await q("UPDATE apps SET updated_at = $2, name = $3 WHERE id = $1", [appId, now, JSON.stringify(wf.name)]);
    await this.draftFrom(q, version, now);
    return version;
  }

  /** The draft becomes a version's workflow (next revision); inside the transaction that made the version. */
  private async draftFrom(q: Query, v: VersionRecord, now: number): Promise<void> {
    await q(
      `INSERT INTO app_drafts (${DRAFT_COLUMNS}) VALUES ($1, $2, NULL, 1, $3, $4)
       ON CONFLICT (app_id) DO UPDATE SET workflow = EXCLUDED.workflow, diagnostics = NULL,
         revision = app_drafts.revision + 1, base_version = EXCLUDED.base_version, updated_at = EXCLUDED.updated_at`,
      [v.appId, JSON.stringify(v.workflow), v.version, now],
    );
  }

  async draft(appId: string): Promise<DraftRecord | undefined> {
    const [row] = await this.db.query<DraftRow>(`SELECT ${DRAFT_COLUMNS} FROM app_drafts WHERE app_id = $1`, [appId]);
    return row ? toDraft(row) : undefined;
  }

  async saveDraft(
    appId: string,
    workflow: Workflow,
    diagnostics: Diagnostic[],
    expectedRevision?: number,
  ): Promise<DraftSave | undefined> {
    // The revision check is in the UPDATE itself, so of two servers saving from one revision one wins.
    const [row] = await this.db.query<DraftRow>(
      `UPDATE app_drafts SET workflow = $2, diagnostics = $3, revision = revision + 1, updated_at = $4
       WHERE app_id = $1 AND ($5::integer IS NULL OR revision = $5) RETURNING ${DRAFT_COLUMNS}`,
      [appId, JSON.stringify(workflow), JSON.stringify(diagnostics), Date.now(), expectedRevision ?? null],
    );
    if (row) return { saved: true, draft: toDraft(row) };
    const current = await this.draft(appId);
    return current ? { saved: false, current } : undefined;
  }

  async publish(appId: string, version: number): Promise<AppRecord | undefined> {
    const [row] = await this.db.query<AppRow>(
      `UPDATE apps SET published_version = $2 WHERE id = $1
       AND EXISTS (SELECT 1 FROM app_versions WHERE app_id = $1 AND version = $2) RETURNING ${APP_COLUMNS}`,
      [appId, version],
    );
    return row ? toApp(row) : undefined;
  }

  async published(appId: string): Promise<VersionRecord | undefined> {
    const [row] = await this.db.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS.split(", ")
        .map((c) => `v.${c}`)
        .join(", ")} FROM apps a
       JOIN app_versions v ON v.app_id = a.id AND v.version = a.published_version WHERE a.id = $1`,
      [appId],
      "weft_published_version",
    );
    return row ? versionWith(row, this.publishedWorkflows.of(appId, row.workflow)) : undefined;
  }

  async current(appId: string): Promise<VersionRecord | undefined> {
    const [row] = await this.db.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM app_versions WHERE app_id = $1 ORDER BY version DESC LIMIT 1`,
      [appId],
      "weft_current_version",
    );
    return row ? toVersion(row) : undefined;
  }

  async version(appId: string, version: number): Promise<VersionRecord | undefined> {
    const [row] = await this.db.query<VersionRow>(
      `SELECT ${VERSION_COLUMNS} FROM app_versions WHERE app_id = $1 AND version = $2`,
      [appId, version],
    );
    return row ? toVersion(row) : undefined;
  }

  async versions(appId: string): Promise<VersionRecord[]> {
    return (
      await this.db.query<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM app_versions WHERE app_id = $1 ORDER BY version`,
        [appId],
      )
    ).map(toVersion);
  }

  async addMessage(
    appId: string,
    role: "user" | "assistant",
    text: string,
    version?: number,
    extra: MessageExtra = {},
  ): Promise<void> {
    await this.db.query(
      "INSERT INTO chat_messages (app_id, role, text, version, created_at, outcome, proposal_id) VALUES ($1,$2,$3,$4,$5,$6,$7)",
      [appId, role, JSON.stringify(text), version ?? null, Date.now(), toJson(extra.outcome), extra.proposalId ?? null],
    );
  }

  async messages(appId: string): Promise<ChatMessageRecord[]> {
    const rows = await this.db.query<{
      seq: number;
      role: "user" | "assistant";
      text: string;
      version: number | null;
      outcome: string | null;
      proposal_id: string | null;
      created_at: number;
    }>(
      "SELECT seq, role, text, version, outcome, proposal_id, created_at FROM chat_messages WHERE app_id = $1 ORDER BY seq",
      [appId],
    );
    return rows.map((r) => {
      const outcome = fromJson<ChatMessageRecord["outcome"]>(r.outcome);
      return {
        seq: r.seq,
        role: r.role,
        text: json(r.text),
        ...(r.version !== null ? { version: r.version } : {}),
        ...(outcome ? { outcome } : {}),
        ...(r.proposal_id ? { proposalId: r.proposal_id } : {}),
        createdAt: r.created_at,
      };
    });
  }

  async createProposal(p: NewProposal): Promise<ProposalRecord> {
    const [row] = await this.db.query<ProposalRow>(
      `INSERT INTO proposals (id, app_id, base_version, status, source, instruction, workflow, diff, diagnostics,
         new_errors, summary, created_at, base_revision, base_workflow, tests)
         VALUES ($1,$2,$3,'pending',$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
       RETURNING ${PROPOSAL_COLUMNS}`,
      [
        `prop_${newId()}`,
        p.appId,
        p.baseVersion,
        JSON.stringify(p.source),
        JSON.stringify(p.instruction),
        JSON.stringify(p.workflow),
        JSON.stringify(p.diff),
        JSON.stringify(p.diagnostics),
        JSON.stringify(p.newErrors),
        JSON.stringify(p.summary),
        Date.now(),
        p.baseRevision ?? null,
        p.baseWorkflow ? JSON.stringify(p.baseWorkflow) : null,
        p.tests ? JSON.stringify(p.tests) : null,
      ],
    );
    return toProposal(row!);
  }

  async proposal(appId: string, id: string): Promise<ProposalRecord | undefined> {
    const [row] = await this.db.query<ProposalRow>(
      `SELECT ${PROPOSAL_COLUMNS} FROM proposals WHERE app_id = $1 AND id = $2`,
      [appId, id],
    );
    return row ? toProposal(row) : undefined;
  }

  async proposals(appId: string, status?: ProposalStatus): Promise<ProposalRecord[]> {
    const rows = await this.db.query<ProposalRow>(
      `SELECT ${PROPOSAL_COLUMNS} FROM proposals WHERE app_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at, seq`,
      [appId, status ?? null],
    );
    return rows.map(toProposal);
  }

  async decideProposal(appId: string, id: string, status: "rejected" | "superseded"): Promise<boolean> {
    // The status check is in the UPDATE itself, so two servers cannot both decide it.
    const rows = await this.db.query(
      "UPDATE proposals SET status = $3, decided_at = $4 WHERE app_id = $1 AND id = $2 AND status = 'pending' RETURNING id",
      [appId, id, status, Date.now()],
    );
    return rows.length > 0;
  }

  async applyProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
  ): Promise<DraftRecord | undefined> {
    return this.db.tx(async (q) => {
      // The proposal row is locked, so a second apply waits and then finds it decided.
      const [p] = await q<ProposalRow>(
        `SELECT ${PROPOSAL_COLUMNS} FROM proposals WHERE app_id = $1 AND id = $2 FOR UPDATE`,
        [appId, id],
      );
      if (p?.status !== "pending") return undefined;
      // Read before the write; the write's revision check makes it the content the write replaced.
      const [before] = await q<{ workflow: string }>("SELECT workflow FROM app_drafts WHERE app_id = $1", [appId]);
      const d = await this.writeDraftIn(q, appId, p.workflow, diagnostics, expectedRevision);
      if (!d) return undefined;
      // A proposal made before drafts had no base workflow: what it replaced is what an undo puts back.
      await q(
        "UPDATE proposals SET status = 'applied', applied_revision = $2, decided_at = $3, base_workflow = COALESCE(base_workflow, $4) WHERE id = $1",
        [id, d.revision, Date.now(), before?.workflow ?? null],
      );
      return d;
    });
  }

  async undoProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
    restored?: Workflow,
  ): Promise<DraftRecord | undefined> {
    return this.db.tx(async (q) => {
      const [p] = await q<ProposalRow>(
        `SELECT ${PROPOSAL_COLUMNS} FROM proposals WHERE app_id = $1 AND id = $2 FOR UPDATE`,
        [appId, id],
      );
      if (p?.status !== "applied" || p.undone_at !== null || p.base_workflow === null) return undefined;
      const json = restored ? JSON.stringify(restored) : p.base_workflow;
      const d = await this.writeDraftIn(q, appId, json, diagnostics, expectedRevision);
      if (!d) return undefined;
      await q("UPDATE proposals SET undone_at = $2 WHERE id = $1", [id, Date.now()]);
      return d;
    });
  }

  /** The draft becomes `workflowJson` while it is at `expectedRevision` (the check is in the UPDATE itself). */
  private async writeDraftIn(
    q: Query,
    appId: string,
    workflowJson: string,
    diagnostics: Diagnostic[],
    expectedRevision: number,
  ): Promise<DraftRecord | undefined> {
    const [row] = await q<DraftRow>(
      `UPDATE app_drafts SET workflow = $2, diagnostics = $3, revision = revision + 1, updated_at = $4
       WHERE app_id = $1 AND revision = $5 RETURNING ${DRAFT_COLUMNS}`,
      [appId, workflowJson, JSON.stringify(diagnostics), Date.now(), expectedRevision],
    );
    return row ? toDraft(row) : undefined;
  }

  async restoreDraft(appId: string, version: number): Promise<DraftRecord | undefined> {
    return this.db.tx(async (q) => {
      const [v] = await q<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM app_versions WHERE app_id = $1 AND version = $2`,
        [appId, version],
      );
      if (!v) return undefined;
      await this.draftFrom(q, toVersion(v), Date.now());
      const [row] = await q<DraftRow>(`SELECT ${DRAFT_COLUMNS} FROM app_drafts WHERE app_id = $1`, [appId]);
      return row ? toDraft(row) : undefined;
    });
  }

  async createKey(name = "default", grant: KeyGrant = DEFAULT_KEY_GRANT): Promise<{ id: string; key: string }> {
    const id = newId();
    const key = newApiKey();
    await this.db.query(
      "INSERT INTO api_keys (id, name, hash, created_at, workspace_id, role) VALUES ($1, $2, $3, $4, $5, $6)",
      [id, JSON.stringify(name), hashKey(key), Date.now(), grant.workspaceId, grant.role],
    );
    return { id, key };
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.query<KeyRow>(
      "SELECT id, name, created_at, last_used_at, workspace_id, role FROM api_keys ORDER BY created_at, seq",
    );
    return rows.map((r) => toKey(r, json(r.name)));
  }

  async findKey(key: string): Promise<ApiKeyRecord | undefined> {
    const [r] = await this.db.query<KeyRow>(
      "SELECT id, name, created_at, last_used_at, workspace_id, role FROM api_keys WHERE hash = $1",
      [hashKey(key)],
    );
    return r && toKey(r, json(r.name));
  }

  async revokeKey(id: string): Promise<boolean> {
    return (await this.db.query("DELETE FROM api_keys WHERE id = $1 RETURNING id", [id])).length > 0;
  }

  async verifyKey(key: string): Promise<boolean> {
    return (
      (await this.db.query("SELECT 1 FROM api_keys WHERE hash = $1", [hashKey(key)], "weft_verify_key")).length > 0
    );
  }

  async appendEvents(batches: EventBatch[]): Promise<void> {
    // A sequence number written twice in one call keeps the later event, as a second call would.
    const bySeq = new Map<string, readonly [string, number, string]>();
    for (const b of batches)
      for (const [i, e] of b.events.entries())
        bySeq.set(JSON.stringify([b.runId, b.from + i]), [b.runId, b.from + i, JSON.stringify(e)]);
    const rows = [...bySeq.values()];
    if (rows.length === 0) return;
    // One statement for every batch: atomic, one round trip, and a rewritten sequence number replaces.
    await this.db.query(
      `INSERT INTO run_events (run_id, seq, event)
       SELECT * FROM unnest($1::text[], $2::integer[], $3::json[])
       ON CONFLICT (run_id, seq) DO UPDATE SET event = EXCLUDED.event`,
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
      "weft_append_events",
    );
  }

  async events(runId: string, after = -1): Promise<RunEvent[]> {
    const rows = await this.db.query<{ event: string }>(
      "SELECT event FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
      [runId, after],
      "weft_events",
    );
    return rows.map((r) => json(r.event));
  }
}
