/**
 * Edits of a Weft workflow, applied immutably. Each edit must leave a workflow that the analyser
 * accepts; otherwise it is rejected with the diagnostics (the edit's own problems as `edit.*` codes, or
 * the analyser's errors), and the input workflow is untouched.
 */
import type { z } from "zod";
import { analyse } from "../analysis/index.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { NodeTypes } from "../ir/registry.js";
import { type Workflow, WorkflowSchema } from "../ir/workflow.js";
import { EditError } from "./error.js";
import type { EditEnv } from "./graph.js";
import { applyToGraph, type Edit, EditSchema, type ParsedEdit } from "./kinds.js";
import { workflowWiring } from "./workflow-wiring.js";

export type EditOutcome =
  | { ok: true; workflow: Workflow; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

export interface WorkflowEditOptions {
  /** The node types the edited workflow is checked against. */
  nodeTypes: NodeTypes;
  /** The edits a caller offers (default: every kind). */
  schema?: z.ZodType<ParsedEdit, unknown>;
  templates?: EditEnv["templates"];
}

const issuesAs = (code: string, issues: z.core.$ZodIssue[]): Diagnostic[] =>
  issues.map((i) => ({ code, severity: "error" as const, field: i.path.join("."), message: i.message }));

/** One edit. The input is never modified. */
export function applyEdit(workflow: Workflow, edit: Edit, o: WorkflowEditOptions): EditOutcome {
  const parsed = (o.schema ?? EditSchema).safeParse(edit);
  if (!parsed.success) return { ok: false, diagnostics: issuesAs("edit.invalid", parsed.error.issues) };
  const draft = structuredClone(workflow);
  try {
    applyToGraph(draft, parsed.data, {
      wiring: workflowWiring(o.nodeTypes),
      nodeTypes: o.nodeTypes,
      ...(o.templates ? { templates: o.templates } : {}),
    });
  } catch (err) {
    if (err instanceof EditError) return { ok: false, diagnostics: [err.toDiagnostic()] };
    throw err;
  }
  const schema = WorkflowSchema.safeParse(draft);
  if (!schema.success) return { ok: false, diagnostics: issuesAs("edit.schema", schema.error.issues) };
  const { diagnostics } = analyse(schema.data, o.nodeTypes);
  const errors = diagnostics.filter((d) => d.severity === "error");
  return errors.length ? { ok: false, diagnostics: errors } : { ok: true, workflow: schema.data, diagnostics };
}

export interface EditsOutcome<E extends Edit = Edit> {
  workflow: Workflow;
  applied: E[];
  rejected: Array<{ index: number; edit: E; diagnostics: Diagnostic[] }>;
}

/** Applies edits in order; each is checked on its own, and a rejected one is skipped (and reported). */
export function applyEdits<E extends Edit>(
  workflow: Workflow,
  edits: readonly E[],
  o: WorkflowEditOptions,
): EditsOutcome<E> {
  let wf = workflow;
  const applied: E[] = [];
  const rejected: EditsOutcome<E>["rejected"] = [];
  edits.forEach((edit, index) => {
    const r = applyEdit(wf, edit, o);
    if (r.ok) {
      wf = r.workflow;
      applied.push(edit);
    } else rejected.push({ index, edit, diagnostics: r.diagnostics });
  });
  return { workflow: wf, applied, rejected };
}
