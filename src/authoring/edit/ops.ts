/**
 * The agent's edit protocol: small operations on the compact workflow it was shown (add or remove a
 * node, set one param field or a title, add or remove an edge). They are the edit algebra's kinds
 * (src/edits) in the wire form the model writes; they produce a compact answer that goes through the same
 * reader as a whole-workflow answer, so both paths keep everything not edited.
 */
import { z } from "zod";
import type { CompactWorkflow } from "../../dsl/compact/project.js";
import { applyToGraph, EditError, type EditGraph, type ParsedEdit, READER_WIRING } from "../../edits/index.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { describeValue, isPlainObject, type JsonObject } from "../../util/json.js";

const Id = z.union([z.string().min(1), z.number()]).transform(String);
const Edge = z.tuple([Id, z.union([z.number().int().min(0), z.string()]), Id]);

export const EditOpSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("add_node"),
    // The param object is kept as written (a record schema would copy it and lose keys like `__proto__`).
    node: z.object({
      id: Id,
      type: z.string().min(1),
      title: z.string().optional(),
      param: z.custom<JsonObject>(isPlainObject, "param must be an object").optional(),
    }),
  }),
  /** Removes the node and every edge it is on. */
  z.object({ op: z.literal("remove_node"), id: Id }),
  /** `field` is a param key, or a dotted path into it (`dify.url`). */
  z.object({ op: z.literal("set_param"), id: Id, field: z.string().min(1), value: z.unknown() }),
  z.object({ op: z.literal("set_title"), id: Id, title: z.string().min(1) }),
  z.object({ op: z.literal("add_edge"), edge: Edge }),
  z.object({ op: z.literal("remove_edge"), edge: Edge }),
]);
export type EditOp = z.infer<typeof EditOpSchema>;

export const EDIT_OPS_HELP =
  'Operations: {"op":"add_node","node":{"id","type","title?","param"}}, {"op":"remove_node","id"} (also removes its edges), {"op":"set_param","id","field","value"} (field = a param key, or a dotted path such as "dify.url"), {"op":"set_title","id","title"}, {"op":"add_edge","edge":[source, port, target]}, {"op":"remove_edge","edge":[source, port, target]}.';

export interface OpsResult {
  compact?: CompactWorkflow;
  diagnostics: Diagnostic[];
}

/** The wire operation as an edit of the algebra; `set_param` is the compact form's word for `set_config`. */
function editOf(op: EditOp): ParsedEdit {
  switch (op.op) {
    case "add_node":
      return {
        kind: "add_node",
        node: {
          id: op.node.id,
          type: op.node.type,
          ...(op.node.title !== undefined ? { title: op.node.title } : {}),
          config: op.node.param ?? {},
        },
      };
    case "remove_node":
      return { kind: "remove_node", id: op.id };
    case "set_param":
      return { kind: "set_config", id: op.id, field: op.field, value: op.value };
    case "set_title":
      return { kind: "set_title", id: op.id, title: op.title };
    case "add_edge":
    case "remove_edge":
      return { kind: op.op, source: op.edge[0], sourcePort: op.edge[1], target: op.edge[2] };
  }
}

/** The compact form as the algebra's graph (param read as config); the objects are shared, not copied. */
function graphOf(c: CompactWorkflow): EditGraph {
  return {
    nodes: c.nodes_info.map((n) => ({
      id: n.id,
      type: n.type,
      ...(n.title !== undefined ? { title: n.title } : {}),
      config: n.param,
    })),
    edges: c.edges.map(([source, sourcePort, target]) => ({ source, sourcePort, target })),
  };
}

function compactOf(g: EditGraph): CompactWorkflow {
  return {
    nodes_info: g.nodes.map((n) => ({
      id: n.id,
      type: n.type,
      ...(n.title ? { title: n.title } : {}),
      param: n.config as JsonObject,
    })),
    edges: g.edges.map((e) => [e.source, e.sourcePort, e.target]),
  };
}

function opDiagnostic(i: number, err: EditError): Diagnostic {
  return {
    ...err.toDiagnostic(),
    field: `edits[${i}]${err.field ? `.${err.field}` : ""}`,
    message: `edits[${i}]: ${err.message}`,
  };
}

/** Apply `ops` (model output) in order to a copy of `shown`; any bad operation rejects them all. */
export function applyOps(shown: CompactWorkflow, ops: unknown): OpsResult {
  const diagnostics: Diagnostic[] = [];
  if (!Array.isArray(ops) || ops.length === 0)
    return {
      diagnostics: [
        {
          code: "edit.bad_ops",
          severity: "error",
          field: "edits",
          message: `edits must be a non-empty list of operations, got ${describeValue(ops)}. ${EDIT_OPS_HELP}`,
        },
      ],
    };
  const g = graphOf(structuredClone(shown));
  ops.forEach((raw, i) => {
    const parsed = EditOpSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      diagnostics.push({
        code: "edit.bad_op",
        severity: "error",
        field: `edits[${i}]${issue.path.length ? `.${issue.path.join(".")}` : ""}`,
        message: `edits[${i}]: ${issue.message} (got ${describeValue(raw)})`,
      });
      return;
    }
    try {
      // A batch: the reader checks the answer as a whole, so an edge may come before the node it names.
      applyToGraph(g, editOf(parsed.data), { wiring: READER_WIRING, nodeTypes: nodeCatalogue, batch: true });
    } catch (err) {
      if (!(err instanceof EditError)) throw err;
      diagnostics.push(opDiagnostic(i, err));
    }
  });
  return diagnostics.length ? { diagnostics } : { compact: compactOf(g), diagnostics };
}
