/**
 * The shapes the server sends, from its own definitions (src/server/api-types.ts, types only: nothing of the
 * server is bundled), under the names the studio uses; and the studio's own types.
 */
import type { AppImported, Diagnostic, Workflow } from "../../src/server/api-types";

export type {
  AppImported,
  AppInfo,
  AttemptRecord,
  AvailableValue,
  Diagnostic,
  DraftView,
  EdgeSummary,
  FieldChange,
  JsonSchema,
  NodeSummary,
  NodeTypeInfo,
  ProposalDecision,
  ProposalTests,
  ProposalView,
  RunEvent,
  RunLogEntry,
  TurnOutcome,
  VersionBody,
  VersionImported,
  VersionInfo,
  Workflow,
  WorkflowDiff,
  WorkflowEdge as WfEdge,
  WorkflowNode as WfNode,
} from "../../src/server/api-types";

/** What an import dialog reports: the server's answer, and the imported workflow for naming nodes by title. */
export interface ImportResult {
  app?: AppImported["app"];
  version?: number;
  /** Importing into an app: the file equals its current version, so none was recorded. */
  unchanged?: boolean;
  warnings: Diagnostic[];
  diagnostics: Diagnostic[];
  workflow?: Workflow;
}
