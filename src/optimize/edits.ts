/**
 * The edits the optimiser model is offered: the edit algebra's (src/edits) structural kinds, with new
 * node ids limited to what Dify references can name, and `refine_prompt` templates from the prompt
 * library. Applied immutably, each edit checked by the analyser on its own.
 */
import { z } from "zod";
import {
  applyEdit as applyWorkflowEdit,
  applyEdits as applyWorkflowEdits,
  describeEdit,
  type EditOutcome,
  type EditsOutcome,
  editSchemaOf,
  type ParsedEdit,
  type WorkflowEditOptions,
} from "../edits/index.js";
import type { Workflow } from "../ir/workflow.js";
import { promptByRef } from "../mine/prompts.js";
import { nodeCatalogue } from "../nodes/index.js";

const ID = /^[A-Za-z0-9_]{1,50}$/;

/** The kinds offered: the optimiser removes a node with bypass_node and changes one with replace_node. */
const OFFERED = [
  editSchemaOf("add_node"),
  editSchemaOf("bypass_node"),
  editSchemaOf("replace_node"),
  editSchemaOf("add_edge"),
  editSchemaOf("remove_edge"),
  editSchemaOf("reconnect_edge"),
  editSchemaOf("add_branch"),
  editSchemaOf("refine_branch"),
  editSchemaOf("add_parallel_branch"),
  editSchemaOf("wrap_in_retry_loop"),
  editSchemaOf("refine_prompt"),
] as const;

export const OptimiserEditSchema = z.discriminatedUnion("kind", OFFERED).superRefine((e, ctx) => {
  if ("node" in e && !ID.test(e.node.id))
    ctx.addIssue({ code: "custom", path: ["node", "id"], message: "ids are 1–50 letters, digits or _" });
});
export type Edit = z.input<typeof OptimiserEditSchema>;
export const EDIT_KINDS: string[] = OFFERED.map((s) => s.shape.kind.value);

const OPTIONS: WorkflowEditOptions = {
  nodeTypes: nodeCatalogue,
  schema: OptimiserEditSchema as z.ZodType<ParsedEdit, unknown>,
  templates: promptByRef,
};

/** One edit. The input is never modified. */
export function applyEdit(workflow: Workflow, edit: Edit): EditOutcome {
  return applyWorkflowEdit(workflow, edit, OPTIONS);
}

/** Applies edits in order; each is checked on its own, and a rejected one is skipped (and reported). */
export function applyEdits(workflow: Workflow, edits: readonly Edit[]): EditsOutcome<Edit> {
  return applyWorkflowEdits(workflow, edits, OPTIONS);
}

export { describeEdit, type EditOutcome, type EditsOutcome };
