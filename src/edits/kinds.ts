/** Every edit kind, the union of their schemas, and applying or describing one. */
import { z } from "zod";
import { addBranch } from "./add-branch.js";
import { addEdge } from "./add-edge.js";
import { addNode } from "./add-node.js";
import { addParallelBranch } from "./add-parallel-branch.js";
import { bypassNode } from "./bypass-node.js";
import type { EditEnv, EditGraph } from "./graph.js";
import { reconnectEdge } from "./reconnect-edge.js";
import { refineBranch } from "./refine-branch.js";
import { refinePrompt } from "./refine-prompt.js";
import { removeEdge } from "./remove-edge.js";
import { removeNode } from "./remove-node.js";
import { replaceNode } from "./replace-node.js";
import { setConfig } from "./set-config.js";
import { setTitle } from "./set-title.js";
import { wrapInRetryLoop } from "./wrap-in-retry-loop.js";

const KINDS = {
  add_node: addNode,
  remove_node: removeNode,
  bypass_node: bypassNode,
  replace_node: replaceNode,
  set_config: setConfig,
  set_title: setTitle,
  add_edge: addEdge,
  remove_edge: removeEdge,
  reconnect_edge: reconnectEdge,
  add_branch: addBranch,
  refine_branch: refineBranch,
  add_parallel_branch: addParallelBranch,
  wrap_in_retry_loop: wrapInRetryLoop,
  refine_prompt: refinePrompt,
} as const;

export type EditKindName = keyof typeof KINDS;

export const EditSchema = z.discriminatedUnion("kind", [
  addNode.schema,
  removeNode.schema,
  bypassNode.schema,
  replaceNode.schema,
  setConfig.schema,
  setTitle.schema,
  addEdge.schema,
  removeEdge.schema,
  reconnectEdge.schema,
  addBranch.schema,
  refineBranch.schema,
  addParallelBranch.schema,
  wrapInRetryLoop.schema,
  refinePrompt.schema,
]);
/** An edit as written (defaults not yet filled in). */
export type Edit = z.input<typeof EditSchema>;
/** An edit as parsed. */
export type ParsedEdit = z.infer<typeof EditSchema>;
export const EDIT_KINDS = Object.keys(KINDS) as EditKindName[];

/** The schema of one kind, for a caller offering a subset. */
export function editSchemaOf<K extends EditKindName>(kind: K): (typeof KINDS)[K]["schema"] {
  return KINDS[kind].schema;
}

/** Applies a parsed edit to `g` in place; throws EditError when it cannot. */
export function applyToGraph(g: EditGraph, e: ParsedEdit, env: EditEnv): void {
  (KINDS[e.kind].apply as (g: EditGraph, e: ParsedEdit, env: EditEnv) => void)(g, e, env);
}

/** One line per edit, for logs, tables and the optimiser's list of plans already tried. */
export function describeEdit(e: Edit): string {
  return (KINDS[e.kind].describe as (e: Edit) => string)(e);
}
