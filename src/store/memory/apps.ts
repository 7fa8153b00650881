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
import type { RunEvent } from "../run-events.js";

/** In-process app store (nothing survives the process); same contract as the SQLite store. */
export class MemoryAppStore implements AppStore {
  private apps = new Map<string, AppRecord>();
  private versionLog = new Map<string, VersionRecord[]>();
  private messageLog = new Map<string, ChatMessageRecord[]>();
  private messageSeq = 0;
  private keys = new Map<string, ApiKeyRecord & { hash: string }>();
  private eventLog = new Map<string, Map<number, RunEvent>>();
  private proposalLog = new Map<string, ProposalRecord[]>();
  private drafts = new Map<string, DraftRecord>();

  async createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
    opts: CreateAppOptions = {},
  ): Promise<{ app: AppRecord; version: VersionRecord }> {
    const now = Date.now();
    const app: AppRecord = {
      id: newId(),
      name: a.name,
      mode: a.mode,
      description: a.description ?? "",
      createdAt: now,
      updatedAt: now,
      ...(opts.publish !== false ? { publishedVersion: 1 } : {}),
    };
    const version: VersionRecord = {
      appId: app.id,
      version: 1,
      workflow: structuredClone(workflow),
      source,
      note: "",
      createdAt: now,
    };
    this.apps.set(app.id, app);
    this.versionLog.set(app.id, [version]);
    this.setDraftFrom(version, now);
    return structuredClone({ app, version });
  }

  async listApps(): Promise<AppRecord[]> {
    return structuredClone([...this.apps.values()].reverse().sort((a, b) => b.createdAt - a.createdAt));
  }

  async getApp(id: string): Promise<AppRecord | undefined> {
    return structuredClone(this.apps.get(id));
  }

  async deleteApp(id: string): Promise<boolean> {
    this.versionLog.delete(id);
    this.drafts.delete(id);
    this.messageLog.delete(id);
    this.proposalLog.delete(id);
    return this.apps.delete(id);
  }

  async addVersion(
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note = "",
    links: VersionLinks = {},
  ): Promise<VersionRecord> {
    const now = Date.now();
    const log = this.versionLog.get(appId) ?? [];
    const parent = links.parent ?? (log.length > 0 ? log.length : undefined);
    const v: VersionRecord = {
      appId,
      version: log.length + 1,
      workflow: structuredClone(wf),
      source,
      note,
      ...(parent !== undefined ? { parent } : {}),
      ...(links.restores !== undefined ? { restores: links.restores } : {}),
      createdAt: now,
    };
    log.push(v);
    this.versionLog.set(appId, log);
    const app = this.apps.get(appId);
    if (app) Object.assign(app, { updatedAt: now, name: wf.name });
    this.setDraftFrom(v, now);
    return structuredClone(v);
  }

  private setDraftFrom(v: VersionRecord, now: number): void {
    const revision = (this.drafts.get(v.appId)?.revision ?? 0) + 1;
    this.drafts.set(v.appId, {
      appId: v.appId,
      workflow: structuredClone(v.workflow),
      revision,
      baseVersion: v.version,
      updatedAt: now,
    });
  }

  async draft(appId: string): Promise<DraftRecord | undefined> {
    return structuredClone(this.drafts.get(appId));
  }

  async saveDraft(
    appId: string,
    workflow: Workflow,
    diagnostics: Diagnostic[],
    expectedRevision?: number,
  ): Promise<DraftSave | undefined> {
    const cur = this.drafts.get(appId);
    if (!cur) return undefined;
    if (expectedRevision !== undefined && expectedRevision !== cur.revision)
      return { saved: false, current: structuredClone(cur) };
    const next: DraftRecord = {
      ...cur,
      workflow: structuredClone(workflow),
      diagnostics: structuredClone(diagnostics),
      revision: cur.revision + 1,
      updatedAt: Date.now(),
    };
    this.drafts.set(appId, next);
    return { saved: true, draft: structuredClone(next) };
  }

  async publish(appId: string, version: number): Promise<AppRecord | undefined> {
    const app = this.apps.get(appId);
    if (!app || !this.versionLog.get(appId)?.some((v) => v.version === version)) return undefined;
    app.publishedVersion = version;
    return structuredClone(app);
  }

  async published(appId: string): Promise<VersionRecord | undefined> {
    const n = this.apps.get(appId)?.publishedVersion;
    return n === undefined ? undefined : this.version(appId, n);
  }

  async current(appId: string): Promise<VersionRecord | undefined> {
    return structuredClone(this.versionLog.get(appId)?.at(-1));
  }

  async version(appId: string, version: number): Promise<VersionRecord | undefined> {
    return structuredClone(this.versionLog.get(appId)?.find((v) => v.version === version));
  }

  async versions(appId: string): Promise<VersionRecord[]> {
    return structuredClone(this.versionLog.get(appId) ?? []);
  }

  async addMessage(
    appId: string,
    role: "user" | "assistant",
    text: string,
    version?: number,
    extra: MessageExtra = {},
  ): Promise<void> {
    const log = this.messageLog.get(appId) ?? [];
    log.push(
      structuredClone({
        seq: ++this.messageSeq,
        role,
        text,
        ...(version !== undefined ? { version } : {}),
        ...(extra.outcome ? { outcome: extra.outcome } : {}),
        ...(extra.proposalId ? { proposalId: extra.proposalId } : {}),
        createdAt: Date.now(),
      }),
    );
    this.messageLog.set(appId, log);
  }

  async createProposal(p: NewProposal): Promise<ProposalRecord> {
    const rec: ProposalRecord = {
      ...structuredClone(p),
      id: `prop_${newId()}`,
      status: "pending",
      createdAt: Date.now(),
    };
    const log = this.proposalLog.get(p.appId) ?? [];
    log.push(rec);
    this.proposalLog.set(p.appId, log);
    return structuredClone(rec);
  }

  async proposal(appId: string, id: string): Promise<ProposalRecord | undefined> {
    return structuredClone(this.proposalLog.get(appId)?.find((p) => p.id === id));
  }

  async proposals(appId: string, status?: ProposalStatus): Promise<ProposalRecord[]> {
    return structuredClone((this.proposalLog.get(appId) ?? []).filter((p) => !status || p.status === status));
  }

  async decideProposal(appId: string, id: string, status: "rejected" | "superseded"): Promise<boolean> {
    const p = this.proposalLog.get(appId)?.find((x) => x.id === id);
    if (p?.status !== "pending") return false;
    Object.assign(p, { status, decidedAt: Date.now() });
    return true;
  }

  async applyProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
  ): Promise<DraftRecord | undefined> {
    const p = this.proposalLog.get(appId)?.find((x) => x.id === id);
    if (p?.status !== "pending") return undefined;
    const before = this.drafts.get(appId)?.workflow;
    const r = await this.saveDraft(appId, p.workflow, diagnostics, expectedRevision);
    if (!r?.saved) return undefined;
    // A proposal made before drafts had no base workflow: what it replaced is what an undo puts back.
    p.baseWorkflow ??= structuredClone(before);
    Object.assign(p, { status: "applied", appliedRevision: r.draft.revision, decidedAt: Date.now() });
    return r.draft;
  }

  async undoProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
    restored?: Workflow,
  ): Promise<DraftRecord | undefined> {
    const p = this.proposalLog.get(appId)?.find((x) => x.id === id);
    if (p?.status !== "applied" || p.undoneAt !== undefined || !p.baseWorkflow) return undefined;
    const r = await this.saveDraft(appId, restored ?? p.baseWorkflow, diagnostics, expectedRevision);
    if (!r?.saved) return undefined;
    p.undoneAt = Date.now();
    return r.draft;
  }

  async restoreDraft(appId: string, version: number): Promise<DraftRecord | undefined> {
    const v = this.versionLog.get(appId)?.find((x) => x.version === version);
    if (!v) return undefined;
    this.setDraftFrom(v, Date.now());
    return structuredClone(this.drafts.get(appId));
  }

  async messages(appId: string): Promise<ChatMessageRecord[]> {
    return structuredClone(this.messageLog.get(appId) ?? []);
  }

  async createKey(name = "default", grant: KeyGrant = DEFAULT_KEY_GRANT): Promise<{ id: string; key: string }> {
    const id = newId();
    const key = newApiKey();
    this.keys.set(id, { id, name, createdAt: Date.now(), hash: hashKey(key), ...grant });
    return { id, key };
  }

  async findKey(key: string): Promise<ApiKeyRecord | undefined> {
    const h = hashKey(key);
    const found = [...this.keys.values()].find((k) => k.hash === h);
    if (!found) return undefined;
    const { hash: _, ...k } = found;
    return structuredClone(k);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()].map(({ hash: _, ...k }) => structuredClone(k));
  }

  async revokeKey(id: string): Promise<boolean> {
    return this.keys.delete(id);
  }

  async verifyKey(key: string): Promise<boolean> {
    const h = hashKey(key);
    return [...this.keys.values()].some((k) => k.hash === h);
  }

  async appendEvents(batches: EventBatch[]): Promise<void> {
    for (const b of batches) {
      const log = this.eventLog.get(b.runId) ?? new Map<number, RunEvent>();
      this.eventLog.set(b.runId, log);
      b.events.forEach((e, i) => {
        log.set(b.from + i, structuredClone(e));
      });
    }
  }

  async events(runId: string, after = -1): Promise<RunEvent[]> {
    const log = this.eventLog.get(runId) ?? new Map<number, RunEvent>();
    return structuredClone(
      [...log.entries()]
        .filter(([seq]) => seq > after)
        .sort((a, b) => a[0] - b[0])
        .map(([, e]) => e),
    );
  }
}
