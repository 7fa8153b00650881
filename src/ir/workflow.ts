import { z } from "zod";
import { ValueTypeSchema } from "./types.js";

/**
 * A node: `config` is the node type's data exactly as Dify writes it (minus `type` and `title`), so
 * unknown fields survive import and export untouched. `canvas` keeps editor-only keys (position, size,
 * z-index ...) for a lossless round trip; nothing in Weft's semantics reads it.
 */
export const NodeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  title: z.string().default(""),
  /** The container (iteration or loop) this node lives in. */
  parentId: z.string().min(1).optional(),
  config: z.record(z.string(), z.unknown()).default({}),
  canvas: z.record(z.string(), z.unknown()).optional(),
});
export type WorkflowNode = z.infer<typeof NodeSchema>;

/** An edge goes from a node's output port (Dify's sourceHandle) to a node. */
export const EdgeSchema = z.object({
  id: z.string().optional(),
  source: z.string().min(1),
  sourcePort: z.string().min(1).default("source"),
  target: z.string().min(1),
  canvas: z.record(z.string(), z.unknown()).optional(),
});
export type WorkflowEdge = z.infer<typeof EdgeSchema>;

export const VariableSchema = z
  .object({
    id: z.string().optional(),
    name: z.string().min(1),
    value_type: z.string(),
    value: z.unknown().optional(),
    description: z.string().optional(),
    selector: z.array(z.string()).optional(),
  })
  .loose();
export type WorkflowVariable = z.infer<typeof VariableSchema>;

export const AppModeSchema = z.enum(["workflow", "advanced-chat"]);
export type AppMode = z.infer<typeof AppModeSchema>;

export const WorkflowSchema = z.object({
  /** Weft IR format marker; lets a reader tell Weft JSON from other JSON. */
  weft: z.literal(1).default(1),
  name: z.string().default("untitled"),
  description: z.string().default(""),
  mode: AppModeSchema,
  nodes: z.array(NodeSchema),
  edges: z.array(EdgeSchema),
  environment_variables: z.array(VariableSchema).default([]),
  conversation_variables: z.array(VariableSchema).default([]),
  /** Chat UI features (file upload, opening statement...) — carried, not executed. */
  features: z.record(z.string(), z.unknown()).optional(),
  /** Source-format leftovers (Dify app block, dependencies, viewport, notes) kept for a lossless export. */
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;
export type WorkflowInput = z.input<typeof WorkflowSchema>;

export const OutputDeclSchema = z.object({ name: z.string(), type: ValueTypeSchema });
export type OutputDecl = z.infer<typeof OutputDeclSchema>;

/** A mapping with string keys (all a YAML or JSON reader can produce), checked without copying it. */
const Mapping = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "expected a mapping",
);

/**
 * WorkflowSchema as a check of a workflow an importer built itself, whose records (config, canvas, features,
 * meta) are already mappings: the same shape, but records are checked to be mappings rather than copied entry
 * by entry — that copy was a quarter of a Dify import's CPU, and its result was thrown away. The Dify importer
 * asks it only when isWorkflowShape (workflow-shape.ts, the same rules as plain checks) refuses: a change here
 * belongs there too (test/ir/workflow-shape.test.ts compares the two place by place).
 */
export const WorkflowShapeSchema = WorkflowSchema.extend({
  nodes: z.array(NodeSchema.extend({ config: Mapping, canvas: Mapping.optional() })),
  edges: z.array(EdgeSchema.extend({ canvas: Mapping.optional() })),
  features: Mapping.optional(),
  meta: Mapping.optional(),
});
