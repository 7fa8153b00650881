/**
 * Drafts and publishing, one implementation for the HTTP API and the CLI. The draft is saved on every change,
 * errors and all; publishing turns it into a version that `/v1`, MCP, queued runs and triggers run, and only
 * when the analyser finds no errors. Rolling back is publishing an older version.
 */
import { analyse } from "../analysis/index.js";
import { runGate } from "../analysis/runnable.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { NodeTypes } from "../ir/registry.js";
import { nodeCatalogue } from "../nodes/index.js";
import type { AppRecord, AppStore, DraftRecord, VersionRecord } from "../store/apps.js";
import type { DraftView } from "./api-types.js";
import { ApiError } from "./errors.js";
import { parseWorkflowBody } from "./validate.js";

export type { DraftView };

export interface Published {
  app: AppRecord;
  version: VersionRecord;
  /** The draft had changes since its base version, so publishing made a new version of it. */
  created: boolean;
  warnings: Diagnostic[];
}

/** A draft save refused because another editor saved first: `current` is what they saved. */
export class DraftStaleError extends ApiError {
  constructor(
    readonly current: DraftView,
    expected: number,
  ) {
    super(
      409,
      "draft.stale",
      `the draft is at revision ${current.revision}, not ${expected}: someone saved it meanwhile; nothing was saved (the current draft is returned)`,
    );
  }
}

const sameWorkflow = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

async function appOrFail(apps: AppStore, appId: string): Promise<AppRecord> {
  const app = await apps.getApp(appId);
  if (!app) throw new ApiError(404, "app.not_found", `no app with id ${appId}`);
  return app;
}

export async function draftView(apps: AppStore, d: DraftRecord, types: NodeTypes = nodeCatalogue): Promise<DraftView> {
  const base = await apps.version(d.appId, d.baseVersion);
  return {
    ...d,
    diagnostics: d.diagnostics ?? analyse(d.workflow, types).diagnostics,
    dirty: !base || !sameWorkflow(base.workflow, d.workflow),
  };
}

export async function getDraft(apps: AppStore, appId: string, types: NodeTypes = nodeCatalogue): Promise<DraftView> {
  await appOrFail(apps, appId);
  const d = await apps.draft(appId);
  if (!d) throw new ApiError(409, "publish.no_draft", `app ${appId} has no draft`);
  return draftView(apps, d, types);
}

/**
 * Store `raw` as the app's draft. Anything that reads as a workflow of the app's mode is kept, analyser errors
 * included (they are stored with it); what is not a workflow is refused and nothing changes.
 */
export async function saveDraft(
  apps: AppStore,
  appId: string,
  raw: unknown,
  expectedRevision?: number,
): Promise<DraftView> {
  const app = await appOrFail(apps, appId);
  if (expectedRevision !== undefined && (!Number.isInteger(expectedRevision) || expectedRevision < 1))
    throw new ApiError(400, "draft.invalid_revision", `revision must be a positive integer, got ${expectedRevision}`);
  const workflow = parseWorkflowBody(raw);
  if (workflow.mode !== app.mode)
    throw new ApiError(422, "workflow.mode_mismatch", `this app is a ${app.mode} app; the draft is ${workflow.mode}`);
  const r = await apps.saveDraft(appId, workflow, analyse(workflow, nodeCatalogue).diagnostics, expectedRevision);
  if (!r) throw new ApiError(409, "publish.no_draft", `app ${appId} has no draft`);
  if (!r.saved) throw new DraftStaleError(await draftView(apps, r.current), expectedRevision!);
  return draftView(apps, r.draft);
}

/** How publishing treats the analyser's findings. */
export interface PublishOptions {
  /**
   * Publish a version whose only errors are ones Dify runs anyway (a value produced on one branch, see
   * analysis/runnable.ts): the editor's explicit choice, after which `/v1`, MCP and triggers serve it as Dify
   * would. The findings come back as warnings and stay listed with the version.
   */
  allowWarnings?: boolean;
}

/** The findings publishing reports: every warning, and the errors `allowWarnings` let through as warnings. */
function refuseErrors(diagnostics: Diagnostic[], what: string, opts: PublishOptions = {}): Diagnostic[] {
  const gate = runGate(diagnostics, opts);
  const kept = diagnostics.filter((d) => d.severity !== "error");
  if (gate.blocking.length === 0) return [...gate.downgraded, ...kept];
  const errors = gate.blocking;
  const first = errors[0]!;
  throw new ApiError(
    422,
    "publish.invalid",
    `${what} has ${errors.length} error(s) (first: ${first.nodeId ? `${first.nodeId}: ` : ""}${first.message}); nothing was published${hint(diagnostics, opts)}`,
    diagnostics,
  );
}

function hint(diagnostics: Diagnostic[], opts: PublishOptions): string {
  if (opts.allowWarnings || runGate(diagnostics, { allowWarnings: true }).blocking.length > 0) return "";
  return " (Dify runs these; publish with allow_warnings / --allow-warnings to serve it as Dify does)";
}

/** Publish the draft: its base version when it is unchanged, else a new version (source "publish"). */
export async function publishDraft(
  apps: AppStore,
  appId: string,
  note = "",
  opts: PublishOptions = {},
): Promise<Published> {
  await appOrFail(apps, appId);
  const d = await apps.draft(appId);
  if (!d) throw new ApiError(409, "publish.no_draft", `app ${appId} has no draft to publish`);
  const diagnostics = analyse(d.workflow, nodeCatalogue).diagnostics;
  const warnings = refuseErrors(diagnostics, `the draft (revision ${d.revision})`, opts);
  const base = await apps.version(appId, d.baseVersion);
  const created = !base || !sameWorkflow(base.workflow, d.workflow);
  const version = created ? await apps.addVersion(appId, d.workflow, "publish", note) : base!;
  const app = await apps.publish(appId, version.version);
  if (!app) throw new ApiError(404, "app.not_found", `app ${appId} was deleted while publishing`);
  return { app, version, created, warnings };
}

/** Publish an existing version (a rollback when it is older than the published one); the draft is left alone. */
export async function publishVersion(
  apps: AppStore,
  appId: string,
  n: number,
  opts: PublishOptions = {},
): Promise<Published> {
  await appOrFail(apps, appId);
  const version = await apps.version(appId, n);
  if (!version) throw new ApiError(404, "version.not_found", `app ${appId} has no version ${n}`);
  const diagnostics = analyse(version.workflow, nodeCatalogue).diagnostics;
  const warnings = refuseErrors(diagnostics, `version ${n}`, opts);
  const app = await apps.publish(appId, n);
  if (!app) throw new ApiError(404, "app.not_found", `app ${appId} was deleted while publishing`);
  return { app, version, created: false, warnings };
}

/** The version end users run; a typed refusal before the first publish. */
export async function publishedVersion(apps: AppStore, app: AppRecord): Promise<VersionRecord> {
  const v = await apps.published(app.id);
  if (!v)
    throw new ApiError(
      409,
      "app.not_published",
      `app ${app.id} has no published version yet; publish it (\`weft apps publish ${app.id}\` or the studio's Publish)`,
    );
  return v;
}
