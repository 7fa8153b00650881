import type Database from "better-sqlite3";
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
import { GroupCommit } from "./group-commit.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS apps (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, mode TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS app_versions (
  app_id TEXT NOT NULL, version INTEGER NOT NULL, workflow TEXT NOT NULL, source TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, PRIMARY KEY (app_id, version));
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, last_used_at INTEGER);
CREATE TABLE IF NOT EXISTS chat_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, app_id TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL,
  version INTEGER, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chat_messages_app ON chat_messages(app_id, seq);
CREATE TABLE IF NOT EXISTS run_events (
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS proposals (
  id TEXT PRIMARY KEY, app_id TEXT NOT NULL, base_version INTEGER NOT NULL, status TEXT NOT NULL,
  source TEXT NOT NULL, instruction TEXT NOT NULL DEFAULT '', workflow TEXT NOT NULL, diff TEXT NOT NULL,
  diagnostics TEXT NOT NULL, new_errors TEXT NOT NULL, summary TEXT NOT NULL, applied_version INTEGER,
  created_at INTEGER NOT NULL, decided_at INTEGER);
CREATE INDEX IF NOT EXISTS proposals_app ON proposals(app_id, created_at);
CREATE TABLE IF NOT EXISTS app_drafts (
  app_id TEXT PRIMARY KEY, workflow TEXT NOT NULL, diagnostics TEXT, revision INTEGER NOT NULL,
  base_version INTEGER NOT NULL, updated_at INTEGER NOT NULL);
`;

/** Columns added after the first release: plain ADD COLUMN on files made before them. */
export interface KeyRow {
  id: string;
  name: string;
  created_at: number | string;
  last_used_at: number | string | null;
  workspace_id: string;
  role: string;
}
export const toKey = (r: KeyRow, name: string = r.name): ApiKeyRecord => ({
  id: r.id,
  name,
  createdAt: Number(r.created_at),
  ...(r.last_used_at === null ? {} : { lastUsedAt: Number(r.last_used_at) }),
  workspaceId: r.workspace_id,
  role: r.role,
});

const ADDED_COLUMNS: Array<[table: string, column: string, decl: string]> = [
  ["app_versions", "parent", "INTEGER"],
  ["app_versions", "restores", "INTEGER"],
  ["chat_messages", "outcome", "TEXT"],
  ["chat_messages", "proposal_id", "TEXT"],
  ["apps", "published_version", "INTEGER"],
  // Keys made before teams act in the default workspace with every right.
  ["api_keys", "workspace_id", "TEXT NOT NULL DEFAULT 'default'"],
  ["api_keys", "role", "TEXT NOT NULL DEFAULT 'owner'"],
  ["proposals", "base_revision", "INTEGER"],
  ["proposals", "base_workflow", "TEXT"],
  ["proposals", "applied_revision", "INTEGER"],
  ["proposals", "undone_at", "INTEGER"],
  ["proposals", "tests", "TEXT"],
];

/**
 * Files made before drafts and publishing: every app was live at its newest version, so that version is the
 * published one and the draft, as if both had existed all along (runs once, when the columns are added).
 */
const ADOPT_PRE_DRAFT_APPS = `
UPDATE apps SET published_version = (SELECT MAX(version) FROM app_versions v WHERE v.app_id = apps.id);
INSERT INTO app_drafts (app_id, workflow, diagnostics, revision, base_version, updated_at)
  SELECT v.app_id, v.workflow, NULL, 1, v.version, v.created_at FROM app_versions v
  WHERE v.version = (SELECT MAX(version) FROM app_versions w WHERE w.app_id = v.app_id);`;

const toApp = (r: any): AppRecord => ({
  id: r.id,
  name: r.name,
  mode: r.mode,
  description: r.description,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.published_version !== null && r.published_version !== undefined
    ? { publishedVersion: r.published_version }
    : {}),
});
const toDraft = (r: any): DraftRecord => ({
  appId: r.app_id,
  workflow: JSON.parse(r.workflow),
  ...(r.diagnostics !== null ? { diagnostics: JSON.parse(r.diagnostics) } : {}),
  revision: r.revision,
  baseVersion: r.base_version,
  updatedAt: r.updated_at,
});
const toVersion = (r: any): VersionRecord => versionWith(r, JSON.parse(r.workflow));
/** A version row with its workflow already parsed (the published one is shared: PublishedWorkflows). */
const versionWith = (r: any, workflow: VersionRecord["workflow"]): VersionRecord => ({
  appId: r.app_id,
  version: r.version,
  workflow,
  source: r.source,
  note: r.note,
  ...(r.parent !== null && r.parent !== undefined ? { parent: r.parent } : {}),
  ...(r.restores !== null && r.restores !== undefined ? { restores: r.restores } : {}),
  createdAt: r.created_at,
});
const toProposal = (r: any): ProposalRecord => ({
  id: r.id,
  appId: r.app_id,
  baseVersion: r.base_version,
  status: r.status,
  source: r.source,
  instruction: r.instruction,
  workflow: JSON.parse(r.workflow),
  diff: JSON.parse(r.diff),
  diagnostics: JSON.parse(r.diagnostics),
  newErrors: JSON.parse(r.new_errors),
  summary: r.summary,
  ...(r.applied_version !== null ? { appliedVersion: r.applied_version } : {}),
  ...(r.base_revision !== null ? { baseRevision: r.base_revision } : {}),
  ...(r.base_workflow !== null ? { baseWorkflow: JSON.parse(r.base_workflow) } : {}),
  ...(r.applied_revision !== null ? { appliedRevision: r.applied_revision } : {}),
  ...(r.undone_at !== null ? { undoneAt: r.undone_at } : {}),
  ...(r.tests !== null && r.tests !== undefined ? { tests: JSON.parse(r.tests) } : {}),
  createdAt: r.created_at,
  ...(r.decided_at !== null ? { decidedAt: r.decided_at } : {}),
});

/**
 * The server's tables (apps, workflow versions, API keys, chat messages, run event logs) on the same
 * connection as the run store. Synchronous underneath, like `SqliteRunStore`.
 */
export class SqliteAppStore implements AppStore {
  private stmts;
  private readonly publishedWorkflows = new PublishedWorkflows();

  constructor(
    readonly db: Database.Database,
    /** Event log writes join the connection's group commit (one durable sync with the runs' commits). */
    private readonly group: GroupCommit = new GroupCommit(db),
  ) {
    db.transaction(() => {
      db.exec(SCHEMA);
      for (const [table, column, decl] of ADDED_COLUMNS) {
        const cols = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
        if (cols.some((c) => c.name === column)) continue;
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${decl}`);
        if (column === "published_version") db.exec(ADOPT_PRE_DRAFT_APPS);
      }
    })();
    this.stmts = {
      insertApp: db.prepare(
        "INSERT INTO apps (id, name, mode, description, created_at, updated_at, published_version) VALUES (?,?,?,?,?,?,?)",
      ),
      getApp: db.prepare("SELECT * FROM apps WHERE id = ?"),
      insertVersion: db.prepare(
        "INSERT INTO app_versions (app_id, version, workflow, source, note, created_at, parent, restores) VALUES (?,?,?,?,?,?,?,?)",
      ),
      proposal: db.prepare("SELECT * FROM proposals WHERE app_id = ? AND id = ?"),
      version: db.prepare("SELECT * FROM app_versions WHERE app_id = ? AND version = ?"),
      current: db.prepare("SELECT * FROM app_versions WHERE app_id = ? ORDER BY version DESC LIMIT 1"),
      keyLookup: db.prepare("SELECT 1 FROM api_keys WHERE hash = ?"),
      putEvent: db.prepare("INSERT OR REPLACE INTO run_events (run_id, seq, event) VALUES (?,?,?)"),
      events: db.prepare("SELECT event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq"),
      draft: db.prepare("SELECT * FROM app_drafts WHERE app_id = ?"),
      // One statement sets the draft from a version, the first time or any later time.
      draftFromVersion: db.prepare(
        `INSERT INTO app_drafts (app_id, workflow, diagnostics, revision, base_version, updated_at)
         VALUES (?, ?, NULL, 1, ?, ?)
         ON CONFLICT (app_id) DO UPDATE SET workflow = excluded.workflow, diagnostics = NULL,
           revision = app_drafts.revision + 1, base_version = excluded.base_version, updated_at = excluded.updated_at`,
      ),
      saveDraft: db.prepare(
        `UPDATE app_drafts SET workflow = ?, diagnostics = ?, revision = revision + 1, updated_at = ?
         WHERE app_id = ? AND (? IS NULL OR revision = ?)`,
      ),
    };
  }

  private appNow(id: string): AppRecord | undefined {
    const r = this.stmts.getApp.get(id);
    return r ? toApp(r) : undefined;
  }

  private versionNow(appId: string, version: number): VersionRecord | undefined {
    const r = this.stmts.version.get(appId, version);
    return r ? toVersion(r) : undefined;
  }

  async createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
    opts: CreateAppOptions = {},
  ): Promise<{ app: AppRecord; version: VersionRecord }> {
    const id = newId();
    const now = Date.now();
    this.db.transaction(() => {
      this.stmts.insertApp.run(id, a.name, a.mode, a.description ?? "", now, now, opts.publish === false ? null : 1);
      this.stmts.insertVersion.run(id, 1, JSON.stringify(workflow), source, "", now, null, null);
      this.stmts.draftFromVersion.run(id, JSON.stringify(workflow), 1, now);
    })();
    return { app: this.appNow(id)!, version: this.versionNow(id, 1)! };
  }

  async listApps(): Promise<AppRecord[]> {
    return this.db.prepare("SELECT * FROM apps ORDER BY created_at DESC, rowid DESC").all().map(toApp);
  }

  async getApp(id: string): Promise<AppRecord | undefined> {
    return this.appNow(id);
  }

  async deleteApp(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM app_versions WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM app_drafts WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM proposals WHERE app_id = ?").run(id);
      this.db.prepare("DELETE FROM chat_messages WHERE app_id = ?").run(id);
      return this.db.prepare("DELETE FROM apps WHERE id = ?").run(id).changes > 0;
    })();
  }

  async addVersion(
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note = "",
    links: VersionLinks = {},
  ): Promise<VersionRecord> {
    return this.db.transaction(() => this.addVersionNow(appId, wf, source, note, links))();
  }

  /** addVersion's body, for use inside a transaction that also decides a proposal. */
  private addVersionNow(
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note: string,
    links: VersionLinks,
  ): VersionRecord {
    const now = Date.now();
    const { v } = this.db
      .prepare("SELECT COALESCE(MAX(version), 0) AS v FROM app_versions WHERE app_id = ?")
      .get(appId) as { v: number };
    const parent = links.parent ?? (v > 0 ? v : undefined);
    this.stmts.insertVersion.run(
      appId,
      v + 1,
      JSON.stringify(wf),
      source,
      note,
      now,
      parent ?? null,
      links.restores ?? null,
    );
    this.db.prepare("UPDATE apps SET updated_at = ?, name = ? WHERE id = ?").run(now, wf.name, appId);
    this.stmts.draftFromVersion.run(appId, JSON.stringify(wf), v + 1, now);
    return this.versionNow(appId, v + 1)!;
  }

  async draft(appId: string): Promise<DraftRecord | undefined> {
    const r = this.stmts.draft.get(appId);
    return r ? toDraft(r) : undefined;
  }

  async saveDraft(
    appId: string,
    workflow: Workflow,
    diagnostics: Diagnostic[],
    expectedRevision?: number,
  ): Promise<DraftSave | undefined> {
    return this.db.transaction((): DraftSave | undefined => {
      const expected = expectedRevision ?? null;
      const r = this.stmts.saveDraft.run(
        JSON.stringify(workflow),
        JSON.stringify(diagnostics),
        Date.now(),
        appId,
        expected,
        expected,
      );
      const row = this.stmts.draft.get(appId);
      if (!row) return undefined;
      return r.changes > 0 ? { saved: true, draft: toDraft(row) } : { saved: false, current: toDraft(row) };
    })();
  }

  async publish(appId: string, version: number): Promise<AppRecord | undefined> {
    const r = this.db
      .prepare(
        `UPDATE apps SET published_version = ? WHERE id = ?
         AND EXISTS (SELECT 1 FROM app_versions WHERE app_id = ? AND version = ?)`,
      )
      .run(version, appId, appId, version);
    return r.changes > 0 ? this.appNow(appId) : undefined;
  }

  async published(appId: string): Promise<VersionRecord | undefined> {
    const r = this.db
      .prepare(
        "SELECT v.* FROM apps a JOIN app_versions v ON v.app_id = a.id AND v.version = a.published_version WHERE a.id = ?",
      )
      .get(appId) as { workflow: string } | undefined;
    return r ? versionWith(r, this.publishedWorkflows.of(appId, r.workflow)) : undefined;
  }

  async current(appId: string): Promise<VersionRecord | undefined> {
    const r = this.stmts.current.get(appId);
    return r ? toVersion(r) : undefined;
  }

  async version(appId: string, version: number): Promise<VersionRecord | undefined> {
    return this.versionNow(appId, version);
  }

  async versions(appId: string): Promise<VersionRecord[]> {
    return this.db.prepare("SELECT * FROM app_versions WHERE app_id = ? ORDER BY version").all(appId).map(toVersion);
  }

  async addMessage(
    appId: string,
    role: "user" | "assistant",
    text: string,
    version?: number,
    extra: MessageExtra = {},
  ): Promise<void> {
    this.db
      .prepare(
        "INSERT INTO chat_messages (app_id, role, text, version, created_at, outcome, proposal_id) VALUES (?,?,?,?,?,?,?)",
      )
      .run(
        appId,
        role,
        text,
        version ?? null,
        Date.now(),
        extra.outcome ? JSON.stringify(extra.outcome) : null,
        extra.proposalId ?? null,
      );
  }

  async messages(appId: string): Promise<ChatMessageRecord[]> {
    return (this.db.prepare("SELECT * FROM chat_messages WHERE app_id = ? ORDER BY seq").all(appId) as any[]).map(
      (r) => ({
        seq: r.seq,
        role: r.role,
        text: r.text,
        ...(r.version !== null ? { version: r.version } : {}),
        ...(r.outcome ? { outcome: JSON.parse(r.outcome) } : {}),
        ...(r.proposal_id ? { proposalId: r.proposal_id } : {}),
        createdAt: r.created_at,
      }),
    );
  }

  async createProposal(p: NewProposal): Promise<ProposalRecord> {
    const id = `prop_${newId()}`;
    this.db
      .prepare(
        `INSERT INTO proposals (id, app_id, base_version, status, source, instruction, workflow, diff, diagnostics,
          new_errors, summary, created_at, base_revision, base_workflow, tests) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      )
      .run(
        id,
        p.appId,
        p.baseVersion,
        "pending",
        p.source,
        p.instruction,
        JSON.stringify(p.workflow),
        JSON.stringify(p.diff),
        JSON.stringify(p.diagnostics),
        JSON.stringify(p.newErrors),
        p.summary,
        Date.now(),
        p.baseRevision ?? null,
        p.baseWorkflow ? JSON.stringify(p.baseWorkflow) : null,
        p.tests ? JSON.stringify(p.tests) : null,
      );
    return toProposal(this.stmts.proposal.get(p.appId, id));
  }

  async proposal(appId: string, id: string): Promise<ProposalRecord | undefined> {
    const r = this.stmts.proposal.get(appId, id);
    return r ? toProposal(r) : undefined;
  }

  async proposals(appId: string, status?: ProposalStatus): Promise<ProposalRecord[]> {
    const rows = status
      ? this.db
          .prepare("SELECT * FROM proposals WHERE app_id = ? AND status = ? ORDER BY created_at, rowid")
          .all(appId, status)
      : this.db.prepare("SELECT * FROM proposals WHERE app_id = ? ORDER BY created_at, rowid").all(appId);
    return rows.map(toProposal);
  }

  async decideProposal(appId: string, id: string, status: "rejected" | "superseded"): Promise<boolean> {
    // The status check is in the UPDATE itself, so two requests cannot both decide it.
    const r = this.db
      .prepare("UPDATE proposals SET status = ?, decided_at = ? WHERE app_id = ? AND id = ? AND status = 'pending'")
      .run(status, Date.now(), appId, id);
    return r.changes > 0;
  }

  async applyProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
  ): Promise<DraftRecord | undefined> {
    return this.db.transaction((): DraftRecord | undefined => {
      const row = this.stmts.proposal.get(appId, id) as { status: string; workflow: string } | undefined;
      if (row?.status !== "pending") return undefined;
      const before = this.db.prepare("SELECT workflow FROM app_drafts WHERE app_id = ?").get(appId) as
        | { workflow: string }
        | undefined;
      const d = this.writeDraftNow(appId, row.workflow, diagnostics, expectedRevision);
      if (!d) return undefined;
      // A proposal made before drafts had no base workflow: what it replaced is what an undo puts back.
      this.db
        .prepare(
          "UPDATE proposals SET status = 'applied', applied_revision = ?, decided_at = ?, base_workflow = COALESCE(base_workflow, ?) WHERE id = ?",
        )
        .run(d.revision, Date.now(), before?.workflow ?? null, id);
      return d;
    })();
  }

  async undoProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
    restored?: Workflow,
  ): Promise<DraftRecord | undefined> {
    return this.db.transaction((): DraftRecord | undefined => {
      const row = this.stmts.proposal.get(appId, id) as
        | { status: string; base_workflow: string | null; undone_at: number | null }
        | undefined;
      if (row?.status !== "applied" || row.undone_at !== null || row.base_workflow === null) return undefined;
      const json = restored ? JSON.stringify(restored) : row.base_workflow;
      const d = this.writeDraftNow(appId, json, diagnostics, expectedRevision);
      if (!d) return undefined;
      this.db.prepare("UPDATE proposals SET undone_at = ? WHERE id = ?").run(Date.now(), id);
      return d;
    })();
  }

  /** The draft becomes `workflowJson` while it is at `expectedRevision`; inside the caller's transaction. */
  private writeDraftNow(
    appId: string,
    workflowJson: string,
    diagnostics: Diagnostic[],
    expectedRevision: number,
  ): DraftRecord | undefined {
    const r = this.stmts.saveDraft.run(
      workflowJson,
      JSON.stringify(diagnostics),
      Date.now(),
      appId,
      expectedRevision,
      expectedRevision,
    );
    return r.changes > 0 ? toDraft(this.stmts.draft.get(appId)) : undefined;
  }

  async restoreDraft(appId: string, version: number): Promise<DraftRecord | undefined> {
    return this.db.transaction((): DraftRecord | undefined => {
      const v = this.stmts.version.get(appId, version) as { workflow: string } | undefined;
      if (!v) return undefined;
      this.stmts.draftFromVersion.run(appId, v.workflow, version, Date.now());
      return toDraft(this.stmts.draft.get(appId));
    })();
  }

  async createKey(name = "default", grant: KeyGrant = DEFAULT_KEY_GRANT): Promise<{ id: string; key: string }> {
    const id = newId();
    const key = newApiKey();
    this.db
      .prepare("INSERT INTO api_keys (id, name, hash, created_at, workspace_id, role) VALUES (?,?,?,?,?,?)")
      .run(id, name, hashKey(key), Date.now(), grant.workspaceId, grant.role);
    return { id, key };
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (
      this.db
        .prepare(
          "SELECT id, name, created_at, last_used_at, workspace_id, role FROM api_keys ORDER BY created_at, rowid",
        )
        .all() as KeyRow[]
    ).map((r) => toKey(r));
  }

  async findKey(key: string): Promise<ApiKeyRecord | undefined> {
    const r = this.db
      .prepare("SELECT id, name, created_at, last_used_at, workspace_id, role FROM api_keys WHERE hash = ?")
      .get(hashKey(key)) as KeyRow | undefined;
    return r && toKey(r);
  }

  async revokeKey(id: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM api_keys WHERE id = ?").run(id).changes > 0;
  }

  async verifyKey(key: string): Promise<boolean> {
    return !!this.stmts.keyLookup.get(hashKey(key));
  }

  async appendEvents(batches: EventBatch[]): Promise<void> {
    await this.group.write(() => {
      for (const b of batches) {
        b.events.forEach((e, i) => {
          this.stmts.putEvent.run(b.runId, b.from + i, JSON.stringify(e));
        });
      }
    });
  }

  async events(runId: string, after = -1): Promise<RunEvent[]> {
    return (this.stmts.events.all(runId, after) as Array<{ event: string }>).map((r) => JSON.parse(r.event));
  }
}
