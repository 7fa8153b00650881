/**
 * The HTTP API's request and response shapes, as types only. The web studio imports them with `import type`:
 * it is checked against the server's own definitions and bundles none of the server's code. Keep every import
 * here type-only and to modules below the server (the IR, the analyser, the stores' records), so that the
 * studio's type check reads the shapes without pulling in the server and its dependencies.
 */
import type { Diagnostic } from "../ir/diagnostics.js";
import type { NodeTypeDef } from "../ir/registry.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import type { AppRecord, DraftRecord, ProposalRecord, VersionRecord } from "../store/apps.js";
import type { RunLogEntry as RunLogRecord } from "../store/runlog.js";

export type { AvailableValue } from "../analysis/available.js";
export type { Diagnostic } from "../ir/diagnostics.js";
export type { EdgeSummary, FieldChange, NodeSummary, WorkflowDiff } from "../ir/diff.js";
export type { AppMode, Workflow, WorkflowEdge, WorkflowNode } from "../ir/workflow.js";
export type { ProposalStatus, ProposalTests, TurnOutcome } from "../store/apps.js";
export type { RunEvent } from "../store/run-events.js";
export type { AttemptRecord } from "../store/runs.js";
export type { ProposalDecision } from "./chat-history.js";

/** An app as `GET /api/apps` lists it (with its current version's number) and `GET /api/apps/:id` sends it. */
export interface AppInfo extends AppRecord {
  version?: number;
}

/** A version as lists show it (src/server/routes/versions.ts, versionSummary). */
export interface VersionSummary
  extends Pick<VersionRecord, "version" | "source" | "note" | "parent" | "restores" | "createdAt"> {
  nodes: number;
  edges: number;
}

/** One version of `GET /api/apps/:id/versions`: the published one, and the one the draft was made from. */
export interface VersionInfo extends VersionSummary {
  published?: boolean;
  draft?: boolean;
  /** Errors Dify runs anyway, served as warnings. */
  findings?: Diagnostic[];
}

/** A version as the studio opens it (`GET /api/apps/:id/workflow`, `…/versions/:n`). */
export interface VersionBody extends VersionSummary {
  workflow: Workflow;
  diagnostics: Diagnostic[];
  ports: Record<string, string[]>;
}

/** `GET/PUT /api/apps/:id/draft` (src/server/drafts.ts). */
export interface DraftView extends Omit<DraftRecord, "diagnostics"> {
  diagnostics: Diagnostic[];
  /** Saved since it was last set from its base version (a save, publish, proposal or restore makes a version). */
  dirty: boolean;
}

/** An AI change awaiting review (src/authoring/editing.ts, src/server/README.md "Proposals"). */
export interface ProposalView extends Omit<ProposalRecord, "workflow" | "baseWorkflow"> {
  /** Pending, made from what the draft holds now, with changes and no new errors. */
  canApply: boolean;
  /** The draft moved on since the proposal was made: applying it would lose those edits. */
  stale: boolean;
  workflow?: Workflow;
}

/** Whether `POST /undo` would take the last applied proposal out of the draft now, and if not, why. */
export interface UndoState {
  /** The draft revision this was judged at: a later save may change the answer. */
  revision: number;
  /** The applied proposal an undo takes out (the last one applied and not undone). */
  proposal?: ProposalView;
  available: boolean;
  /** Why not: `undo.nothing` (no applied proposal left) or `undo.stale` (the draft was edited after it). */
  reason?: "undo.nothing" | "undo.stale";
}

/** `POST /api/apps/import`: the new app and its first version. */
export interface AppImported {
  app: AppRecord;
  version: VersionSummary;
  warnings: Diagnostic[];
  diagnostics: Diagnostic[];
}

/** `POST /api/apps/:id/import`: the version the file became (none new when `unchanged`). */
export interface VersionImported extends VersionSummary {
  /** The file equals the app's current version, so none was recorded. */
  unchanged: boolean;
  warnings: Diagnostic[];
  diagnostics: Diagnostic[];
}

/** One run of the run log (`GET /api/runs`, `GET /api/apps/:id/runs`), with its page in the studio. */
export interface RunLogEntry extends RunLogRecord {
  link?: string;
}

/** A node type's config schema as JSON Schema (zod's, input side), for the inspector's generated forms. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  description?: string;
  default?: unknown;
  const?: unknown;
  [k: string]: unknown;
}

/** One node type of `GET /api/node-types` (src/server/routes/meta.ts). */
export interface NodeTypeInfo extends Pick<NodeTypeDef, "type" | "label" | "category" | "purpose"> {
  container: NonNullable<NodeTypeDef["container"]> | null;
  containerStart: NonNullable<NodeTypeDef["containerStart"]> | null;
  entry: boolean;
  exit: boolean;
  modes: AppMode[] | null;
  example: Record<string, unknown> | null;
  /** Null when zod cannot express the schema: the config stays editable as raw JSON. */
  schema: JsonSchema | null;
}
