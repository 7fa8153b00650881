/**
 * The agent's edit protocol: small operations on the compact workflow it was shown (add or remove a
 * node, set one param field or a title, add or remove an edge). They produce a compact answer that goes
 * through the same reader as a whole-workflow answer, so both paths keep everything not edited.
 */
import { z } from "zod";
import type { CompactNode, CompactWorkflow } from "../../dsl/compact/project.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { canonicalJson, describeValue, isPlainObject, type JsonObject, setOwn } from "../../util/json.js";

const Id = z.union([z.string().min(1), z.number()]).transform(String);
const Edge = z.tuple([Id, z.union([z.number().int().min(0), z.string()]), Id]);

export const EditOpSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("add_node"),
    // The param object is kept as written (a record schema would copy it and lose keys like `__proto__`).
    node: z.object({ id: Id, type: z.string().min(1), title: z.string().optional(), param: z.custom<JsonObject>(isPlainObject, "param must be an object").optional() }),
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

function setPath(param: JsonObject, path: string[], value: unknown, fail: (m: string) => void): void {
  let at: JsonObject = param;
  for (const k of path.slice(0, -1)) {
    const next = Object.hasOwn(at, k) ? at[k] : undefined;
    if (next === undefined) setOwn(at, k, {});
    else if (!isPlainObject(next)) return fail(`"${k}" is ${describeValue(next)}, not an object`);
    at = at[k] as JsonObject;
  }
  setOwn(at, path.at(-1)!, value);
}

function applyOp(c: CompactWorkflow, op: EditOp, fail: (m: string, nodeId?: string) => void): void {
  const node = (id: string): CompactNode | undefined => {
    const n = c.nodes_info.find((x) => x.id === id);
    if (!n) fail(`there is no node "${id}"`, id);
    return n;
  };
  const sameEdge = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
  switch (op.op) {
    case "add_node":
      if (c.nodes_info.some((x) => x.id === op.node.id)) return fail(`a node "${op.node.id}" exists already`, op.node.id);
      c.nodes_info.push({ id: op.node.id, type: op.node.type, ...(op.node.title ? { title: op.node.title } : {}), param: op.node.param ?? {} });
      return;
    case "remove_node":
      if (!node(op.id)) return;
      c.nodes_info = c.nodes_info.filter((x) => x.id !== op.id);
      c.edges = c.edges.filter((e) => String(e[0]) !== op.id && String(e[2]) !== op.id);
      return;
    case "set_param": {
      const n = node(op.id);
      if (!n) return;
      const param = structuredClone(n.param);
      setPath(param, op.field.split("."), op.value, (m) => fail(`set_param ${op.field}: ${m}`, op.id));
      n.param = param;
      return;
    }
    case "set_title": {
      const n = node(op.id);
      if (n) n.title = op.title;
      return;
    }
    case "add_edge":
      if (c.edges.some((e) => sameEdge(e, op.edge))) return fail(`edge ${canonicalJson(op.edge)} exists already`);
      c.edges.push(op.edge);
      return;
    case "remove_edge": {
      const i = c.edges.findIndex((e) => sameEdge(e, op.edge));
      if (i < 0) return fail(`there is no edge ${canonicalJson(op.edge)}`);
      c.edges.splice(i, 1);
      return;
    }
  }
}

/** Apply `ops` (model output) in order to a copy of `shown`; any bad operation rejects them all. */
export function applyOps(shown: CompactWorkflow, ops: unknown): OpsResult {
  const diagnostics: Diagnostic[] = [];
  if (!Array.isArray(ops) || ops.length === 0)
    return { diagnostics: [{ code: "edit.bad_ops", severity: "error", field: "edits", message: `edits must be a non-empty list of operations, got ${describeValue(ops)}. ${EDIT_OPS_HELP}` }] };
  const c: CompactWorkflow = structuredClone(shown);
  ops.forEach((raw, i) => {
    const parsed = EditOpSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      diagnostics.push({ code: "edit.bad_op", severity: "error", field: `edits[${i}]${issue.path.length ? `.${issue.path.join(".")}` : ""}`, message: `edits[${i}]: ${issue.message} (got ${describeValue(raw)})` });
      return;
    }
    applyOp(c, parsed.data, (message, nodeId) =>
      diagnostics.push({ code: "edit.bad_op", severity: "error", field: `edits[${i}]`, message: `edits[${i}]: ${message}`, ...(nodeId ? { nodeId } : {}) }),
    );
  });
  return diagnostics.length ? { diagnostics } : { compact: c, diagnostics };
}
