/**
 * Compact JSON (what generation models write) → IR. Problems become typed diagnostics, never exceptions
 * and never silent fixes: repairs are the auto-repair modules' job, and they report what they changed.
 */

import { describeNode } from "../../ir/describe.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import type { NodeTypes } from "../../ir/registry.js";
import { type Workflow, type WorkflowEdge, type WorkflowNode, WorkflowSchema } from "../../ir/workflow.js";
import { describeValue, isPlainObject, type JsonObject } from "../../util/json.js";
import { MAX_JSON_DEPTH, tooDeepAt } from "../../util/json-depth.js";
import { type CompactOptions, Converter, compactIdOf, irId } from "./convert.js";
import { shorthandFor } from "./shorthand.js";

export { type CompactOptions, irId } from "./convert.js";

export interface CompactResult {
  /** Undefined when the answer cannot be converted at all (not an object, no nodes, schema broken). */
  workflow?: Workflow;
  diagnostics: Diagnostic[];
  /** Compact id → IR id. */
  ids: Map<string, string>;
}

/** One entry of `nodes_info` that has the shape `{id, type, param?, title?}`. */
export interface RawCompactNode {
  cid: string;
  type: string;
  title?: string;
  param: JsonObject;
}

/** Check the shape of `nodes_info[i]`; problems are reported on `c`. */
export function readCompactNode(c: Converter, raw: unknown, i: number): RawCompactNode | undefined {
  const field = `nodes_info[${i}]`;
  if (!isPlainObject(raw)) {
    c.error("compact.bad_node", `${field} must be {id, type, param}, got ${describeValue(raw)}`, undefined, field);
    return undefined;
  }
  const cid = compactIdOf(raw.id)?.trim();
  if (!cid) {
    c.error(
      "compact.bad_node",
      `${field} needs a non-empty string id, got ${describeValue(raw.id)}`,
      undefined,
      `${field}.id`,
    );
    return undefined;
  }
  if (typeof raw.type !== "string" || raw.type.trim() === "") {
    c.error("compact.bad_node", `node "${cid}" needs a type string, got ${describeValue(raw.type)}`, irId(cid), "type");
    return undefined;
  }
  if (raw.param !== undefined && !isPlainObject(raw.param))
    c.error("compact.bad_param", `param must be an object, got ${describeValue(raw.param)}`, irId(cid), "param");
  if (raw.title !== undefined && typeof raw.title !== "string")
    c.error("compact.bad_param", `title must be a string, got ${describeValue(raw.title)}`, irId(cid), "title");
  return {
    cid,
    type: raw.type.trim(),
    ...(typeof raw.title === "string" && raw.title.trim() ? { title: raw.title } : {}),
    param: isPlainObject(raw.param) ? raw.param : {},
  };
}

/**
 * One node's Dify config from its param: the `dify` form (the config itself), a shorthand, or — for
 * registry types without one — the param read as a Dify config.
 */
export function convertNodeConfig(
  c: Converter,
  n: RawCompactNode,
  id: string,
): { type: string; config: JsonObject } | undefined {
  const s = shorthandFor(n.type);
  if (Object.hasOwn(n.param, "dify")) {
    const raw = n.param.dify;
    if (!isPlainObject(raw)) {
      c.error(
        "compact.bad_param",
        `param.dify must be the node's Dify config object, got ${describeValue(raw)}`,
        id,
        "dify",
      );
      return { type: s?.registryType ?? n.type, config: {} };
    }
    const type = s?.registryType ?? n.type;
    if (!c.nodeTypes.get(type)) return undefined;
    return { type, config: c.dify(raw, id) as JsonObject };
  }
  if (s) return { type: s.registryType, config: s.convert(n.param, c, id).config };
  if (c.nodeTypes.get(n.type)) return { type: n.type, config: c.dify(n.param, id) as JsonObject };
  return undefined;
}

/** The container a compact id names as its parent (`"3-2"` lives in `"3"`), if that is a container. */
export function compactParent(c: Converter, cid: string): { parentCid?: string; ok: boolean } {
  const dash = cid.lastIndexOf("-");
  if (dash <= 0) return { ok: true };
  const parentCid = cid.slice(0, dash);
  const t = c.types.get(parentCid);
  const def = t ? c.nodeTypes.get(shorthandFor(t)?.registryType ?? t) : undefined;
  return { parentCid, ok: !!def?.container };
}

/** A title from the node type's label, numbered when taken ("LLM", "LLM 2"). */
export function defaultTitle(type: string, used: Set<string>, types: NodeTypes): string {
  const label = types.get(type)?.label ?? type;
  let title = label;
  for (let k = 2; used.has(title); k++) title = `${label} ${k}`;
  used.add(title);
  return title;
}

/** A compact edge `[source, port, target]` with its port index, or a diagnostic. */
export function readCompactEdge(
  c: Converter,
  e: unknown,
  i: number,
): { s: string; port: number; t: string } | undefined {
  const field = `edges[${i}]`;
  if (!Array.isArray(e) || e.length !== 3) {
    c.error("compact.bad_edge", `${field} must be [source, port, target], got ${describeValue(e)}`, undefined, field);
    return undefined;
  }
  const s = compactIdOf(e[0]);
  const t = compactIdOf(e[2]);
  if (s === undefined || t === undefined || !c.ids.has(s) || !c.ids.has(t)) {
    const bad = s === undefined || !c.ids.has(s) ? e[0] : e[2];
    c.error(
      "compact.bad_edge",
      `${field} joins ${describeValue(e[0])} → ${describeValue(e[2])}, but ${describeValue(bad)} is not a node`,
      undefined,
      field,
    );
    return undefined;
  }
  const port =
    typeof e[1] === "number" ? e[1] : typeof e[1] === "string" && /^\d+$/.test(e[1].trim()) ? Number(e[1]) : Number.NaN;
  if (!Number.isSafeInteger(port) || port < 0) {
    c.error(
      "compact.bad_port",
      `${field} port must be a non-negative integer, got ${describeValue(e[1])}`,
      c.ids.get(s),
      field,
    );
    return undefined;
  }
  return { s, port, t };
}

/** The handle a compact port index names on a node: its i-th port; single-port nodes take any index. */
export function portHandle(node: WorkflowNode, port: number, types: NodeTypes): string | undefined {
  const ports = describeNode(node, types).ports;
  if (port < ports.length) return ports[port];
  return ports.length === 1 ? ports[0] : undefined;
}

function resolveIterations(c: Converter, converted: Map<string, WorkflowNode>, raws: RawCompactNode[]): void {
  const nodes = [...converted.values()];
  for (const n of raws) {
    if (n.type !== "iteration" || Object.hasOwn(n.param, "dify")) continue;
    const node = converted.get(n.cid);
    if (!node) continue;
    const resolved = c.ref(n.param.output_selector, node.id, "output_selector");
    node.config.output_selector = resolved ?? [];
    node.config.start_node_id = nodes.find((x) => x.parentId === node.id && x.type === "iteration-start")?.id ?? "";
    const src = resolved ? nodes.find((x) => x.id === resolved[0]) : undefined;
    const t = src ? describeNode(src, c.nodeTypes).outputs.find((o) => o.name === resolved![1])?.type : undefined;
    if (t) node.config.output_type = t.startsWith("array[") ? "array[any]" : `array[${t}]`;
  }
}

/** End outputs carry the type of what they read (Dify's value_type), as the reference converter writes it. */
function typeEndOutputs(converted: Map<string, WorkflowNode>, raws: RawCompactNode[], types: NodeTypes): void {
  const nodes = [...converted.values()];
  for (const raw of raws) {
    if (raw.type !== "end" || Object.hasOwn(raw.param, "dify")) continue;
    const end = converted.get(raw.cid);
    for (const o of (end?.config.outputs as Array<{ value_selector: string[]; value_type?: string }>) ?? []) {
      const src = nodes.find((x) => x.id === o.value_selector[0]);
      const t =
        src && o.value_selector.length === 2
          ? describeNode(src, types).outputs.find((d) => d.name === o.value_selector[1])?.type
          : undefined;
      if (t && t !== "any") o.value_type = t;
    }
  }
}

function registerIds(c: Converter, raws: RawCompactNode[], upTo = raws.length): void {
  for (const n of raws.slice(0, upTo)) {
    if (c.ids.has(n.cid)) continue;
    c.ids.set(n.cid, (c.opts.idFor ?? irId)(n.cid));
    c.types.set(n.cid, n.type);
  }
}

/** Every well-formed entry of nodes_info, duplicates reported. */
export function readNodes(c: Converter, input: unknown[]): RawCompactNode[] {
  const raws: RawCompactNode[] = [];
  const written = new Map<string, string>(); // Dify-form id → the compact id that took it
  input.forEach((raw, i) => {
    const n = readCompactNode(c, raw, i);
    if (!n) return;
    if (!/[A-Za-z0-9]/.test(n.cid)) {
      c.error(
        "compact.bad_node",
        `nodes_info[${i}] has the id ${JSON.stringify(n.cid)}; an id needs a letter or digit`,
        undefined,
        `nodes_info[${i}].id`,
      );
      return;
    }
    const clash = written.get(irId(n.cid));
    if (clash !== undefined) {
      const why =
        clash === n.cid
          ? `node id "${n.cid}" is used twice`
          : `node ids "${clash}" and "${n.cid}" are the same id once written for Dify (${irId(n.cid)})`;
      c.error("compact.duplicate_id", why, irId(n.cid), "id");
      return;
    }
    written.set(irId(n.cid), n.cid);
    raws.push(n);
  });
  return raws;
}

/**
 * Each node's IR form by compact id (ids from `opts.idFor`), with what depends on other nodes filled in:
 * an iteration's output selector and type, end outputs' value types.
 */
export function convertNodes(c: Converter, raws: RawCompactNode[]): Map<string, WorkflowNode> {
  const nodes = new Map<string, WorkflowNode>();
  const titles = new Set(raws.flatMap((n) => (n.title ? [n.title] : [])));
  const anyOrder = !!c.opts.anyOrder;
  if (anyOrder) registerIds(c, raws);
  raws.forEach((n, i) => {
    // Ids are registered in list order, so a reference to a later node is reported (the format requires order).
    if (!anyOrder) registerIds(c, raws, i + 1);
    const id = c.ids.get(n.cid)!;
    const conv = convertNodeConfig(c, n, id);
    if (!conv) {
      c.error("compact.unknown_type", `node "${n.cid}" has unknown type ${describeValue(n.type)}`, id, "type");
      return;
    }
    const parent = compactParent(c, n.cid);
    // converter.py marks such a node as inside its "parent" and Dify runs it as a top-level node; a parent not
    // defined yet makes upstream's converter raise (KeyError), so that stays refused.
    const keptAtTop = !parent.ok && !!c.opts.upstreamConverter && c.types.has(parent.parentCid!);
    if (keptAtTop)
      c.warn(
        "compact.child_of_non_container",
        `node "${n.cid}" looks like a child of "${parent.parentCid}", which is not an iteration or loop; kept at the top level, as Chat2Workflow's converter does`,
        id,
        "id",
      );
    else if (!parent.ok)
      c.error(
        "compact.bad_child",
        `node "${n.cid}" looks like a child of "${parent.parentCid}", which is not an iteration or loop defined before it`,
        id,
        "id",
      );
    const parentId = parent.ok && parent.parentCid !== undefined ? c.ids.get(parent.parentCid) : undefined;
    nodes.set(n.cid, {
      id,
      type: conv.type,
      title: n.title ?? defaultTitle(conv.type, titles, c.nodeTypes),
      ...(parentId ? { parentId } : {}),
      config: conv.config,
    });
  });
  resolveIterations(c, nodes, raws);
  typeEndOutputs(nodes, raws, c.nodeTypes);
  return nodes;
}

/** Convert a generation model's compact JSON into IR. */
export function compactToWorkflow(input: unknown, opts: CompactOptions = {}): CompactResult {
  const c = new Converter(opts);
  const fail = (code: string, message: string): CompactResult => {
    c.error(code, message);
    return { diagnostics: c.diags, ids: c.ids };
  };
  if (!isPlainObject(input))
    return fail("compact.not_object", "the workflow JSON must be an object with nodes_info and edges");
  // Everything below recurses over params; a workflow nests about 12 levels.
  const deep = tooDeepAt(input);
  if (deep)
    return fail(
      "compact.too_deep",
      `the workflow JSON nests deeper than ${MAX_JSON_DEPTH} levels (at ${deep.slice(0, 120)})`,
    );
  if (!Array.isArray(input.nodes_info) || input.nodes_info.length === 0)
    return fail("compact.no_nodes", "nodes_info must be a non-empty list");
  const edgesRaw = input.edges ?? [];
  if (!Array.isArray(edgesRaw)) return fail("compact.bad_edges", "edges must be a list of [source, port, target]");

  const nodes = [...convertNodes(c, readNodes(c, input.nodes_info)).values()];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges: WorkflowEdge[] = [];
  edgesRaw.forEach((raw, i) => {
    const e = readCompactEdge(c, raw, i);
    if (!e) return;
    const src = byId.get(c.ids.get(e.s)!);
    const dst = c.ids.get(e.t)!;
    if (!src || !byId.has(dst)) return; // the node itself was reported
    const sourcePort = portHandle(src, e.port, c.nodeTypes);
    if (sourcePort === undefined) {
      c.error(
        "compact.bad_port",
        `edges[${i}]: port ${e.port} does not exist on ${e.s} (it has ${describeNode(src, c.nodeTypes).ports.length})`,
        src.id,
        `edges[${i}]`,
      );
      return;
    }
    edges.push({ source: src.id, sourcePort, target: dst });
  });
  const parsed = WorkflowSchema.safeParse({
    name: opts.name ?? "generated",
    mode: opts.mode ?? (nodes.some((n) => n.type === "answer") ? "advanced-chat" : "workflow"),
    nodes,
    edges,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 10))
      c.error(
        "compact.schema",
        `the converted workflow breaks the IR schema at ${issue.path.join(".")}: ${issue.message}`,
        undefined,
        issue.path.join("."),
      );
    return { diagnostics: c.diags, ids: c.ids };
  }
  return { workflow: parsed.data, diagnostics: c.diags, ids: c.ids };
}
