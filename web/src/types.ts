/** The shapes the server sends (see src/server/routes). Kept loose: the UI only reads what it shows. */
export interface WfNode {
  id: string;
  type: string;
  title: string;
  parentId?: string;
  config: Record<string, unknown>;
  canvas?: Record<string, unknown>;
}
export interface WfEdge {
  id?: string;
  source: string;
  sourcePort: string;
  target: string;
  canvas?: Record<string, unknown>;
}
export interface Workflow {
  weft: 1;
  name: string;
  description: string;
  mode: "workflow" | "advanced-chat";
  nodes: WfNode[];
  edges: WfEdge[];
  [k: string]: unknown;
}
export interface Diagnostic {
  code: string;
  severity: "error" | "warning" | "info";
  message: string;
  nodeId?: string;
  field?: string;
}
export interface AppInfo {
  id: string;
  name: string;
  mode: "workflow" | "advanced-chat";
  description: string;
  createdAt: number;
  updatedAt: number;
  version?: number;
  /** The version `/v1`, MCP, queued runs and triggers run; absent before the first publish. */
  publishedVersion?: number;
}
export interface VersionInfo {
  version: number;
  source: string;
  note: string;
  createdAt: number;
  nodes: number;
  edges: number;
  /** From GET /api/apps/:id/versions: the published version, and the one the draft was made from. */
  published?: boolean;
  draft?: boolean;
}
/** GET/PUT /api/apps/:id/draft (src/server/drafts.ts). */
export interface DraftView {
  appId: string;
  workflow: Workflow;
  diagnostics: Diagnostic[];
  revision: number;
  baseVersion: number;
  updatedAt: number;
  /** Differs from its base version. */
  dirty: boolean;
}
/** One run of the run log (GET /api/apps/:id/runs). */
export interface RunLogEntry {
  id: string;
  appId?: string;
  workflowName: string;
  status: string;
  source?: string;
  version?: number;
  draft?: boolean;
  inputs: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string };
  createdAt: number;
  updatedAt: number;
  link?: string;
}
export interface VersionBody extends VersionInfo {
  workflow: Workflow;
  diagnostics: Diagnostic[];
  ports: Record<string, string[]>;
}
export interface NodeTypeInfo {
  type: string;
  label: string;
  category: string;
  purpose: string;
  container: { startType: string } | null;
  containerStart: { containerType: string } | null;
  entry?: boolean;
  example: Record<string, unknown> | null;
  schema: JsonSchema | null;
}
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
export interface Diff {
  nodesAdded: string[];
  nodesRemoved: string[];
  nodesChanged: string[];
  edgesAdded: string[];
  edgesRemoved: string[];
}
/** One field of a node (or of the workflow) that differs: `field` is its path for people. */
export interface FieldChange {
  path: Array<string | number>;
  field: string;
  kind: "changed" | "added" | "removed";
  old?: unknown;
  new?: unknown;
}
export interface NodeSummary {
  id: string;
  type: string;
  title: string;
  parentId?: string;
}
export interface EdgeSummary {
  id?: string;
  source: string;
  sourcePort: string;
  target: string;
}
/** src/ir/diff.ts: what changed between two workflows, keyed by stable node id. */
export interface WorkflowDiff extends Diff {
  nodes: {
    added: Array<NodeSummary & { node: WfNode }>;
    removed: Array<NodeSummary & { node: WfNode }>;
    changed: Array<NodeSummary & { oldType?: string; changes: FieldChange[] }>;
  };
  edges: { added: EdgeSummary[]; removed: EdgeSummary[] };
  workflow: FieldChange[];
  empty: boolean;
}
/** What testing a proposal found (src/store/apps.ts ProposalTests). */
export interface ProposalTests {
  mode: "cases" | "dry_run" | "none";
  passed: number;
  failed: number;
  was?: { passed: number; failed: number };
  failures: Array<{ caseId?: string; caseName: string; nodeId?: string; nodeTitle?: string; message: string; runId?: string }>;
  revisions?: number;
  line: string;
}
/** An AI change awaiting review (src/server/README.md, "Proposals"). */
export interface ProposalView {
  id: string;
  appId: string;
  baseVersion: number;
  status: "pending" | "applied" | "rejected" | "superseded";
  source: string;
  instruction: string;
  summary: string;
  diff: WorkflowDiff;
  diagnostics: Diagnostic[];
  newErrors: Diagnostic[];
  appliedVersion?: number;
  /** The draft revision it was made from, and the one applying it made. */
  baseRevision?: number;
  appliedRevision?: number;
  undoneAt?: number;
  createdAt: number;
  decidedAt?: number;
  canApply: boolean;
  stale: boolean;
  workflow?: Workflow;
  /** The app's tests run on the draft with this proposal (or a dry run), before the user decides (issue 34). */
  tests?: ProposalTests;
}
/** What a chat turn really did (src/agent/outcome.ts). */
export type TurnOutcome =
  | { kind: "proposed"; summary: string; proposalId?: string; errors: number; warnings: number }
  | { kind: "applied"; summary: string; proposalId?: string; revision?: number; version?: number }
  | { kind: "rejected"; summary: string; diagnostics: Diagnostic[] }
  | { kind: "unchanged"; summary: string };
/** What became of a turn's proposal since (src/server/chat-history.ts). */
export interface ProposalDecision {
  status: "pending" | "applied" | "rejected" | "superseded";
  appliedRevision?: number;
  appliedVersion?: number;
  undone?: boolean;
}
export interface AttemptRecord {
  runId: string;
  key: string;
  nodeId: string;
  nodeType: string;
  title?: string;
  attempt: number;
  status: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  port?: string;
  error?: { code: string; message: string };
  startedAt: number;
  endedAt: number;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  meta?: Record<string, unknown>;
}
/** A value a node may read, as the analyser reports it (POST /api/analyse/available). */
export interface AvailableValue {
  selector: string[];
  type: string;
  source: "node" | "scope" | "sys" | "env" | "conversation";
}
export interface ImportResult {
  app?: AppInfo;
  version?: number;
  /** Importing into an app: the file equals its current version, so none was recorded. */
  unchanged?: boolean;
  warnings: Diagnostic[];
  diagnostics: Diagnostic[];
  /** The imported workflow, for naming nodes by title in the report. */
  workflow?: Workflow;
}
export type RunEvent = { type: string; nodeId?: string; status?: string; [k: string]: unknown };
