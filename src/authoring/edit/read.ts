/**
 * Read a model's compact answer as an edit of the workflow it was shown. Answer nodes are matched to the
 * shown nodes (match.ts); a node whose compact form did not change is kept exactly as stored, a changed
 * one gets only the model's changes merged into its stored config (merge.ts), a new one gets an id in
 * the file's style, a title and the configured model; edges that are still there keep their stored form.
 * So answering the projection unchanged gives back the stored workflow, byte for byte.
 */

import { type CompactOptions, Converter, compactIdOf } from "../../dsl/compact/convert.js";
import { type Projection, projectWorkflow } from "../../dsl/compact/project.js";
import { shorthandFor } from "../../dsl/compact/shorthand.js";
import {
  compactParent,
  convertNodeConfig,
  convertNodes,
  defaultTitle,
  portHandle,
  type RawCompactNode,
  readNodes,
} from "../../dsl/compact/to-ir.js";
import { describeNode } from "../../ir/describe.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { type Workflow, type WorkflowEdge, type WorkflowNode, WorkflowSchema } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { graphTooLarge } from "../../util/answer-limits.js";
import { canonicalJson, deepEqual, describeValue, isPlainObject, type JsonObject } from "../../util/json.js";
import { MAX_JSON_DEPTH, tooDeepAt } from "../../util/json-depth.js";
import { IdIssuer, placeNewNodes } from "./ids.js";
import { type MatchNode, matchNodes } from "./match.js";
import { mergeConfig } from "./merge.js";

/** What the model was shown: a workflow and its projection. */
export interface EditView {
  workflow: Workflow;
  projection: Projection;
}

export function viewOf(workflow: Workflow, prior?: ReadonlyMap<string, string>): EditView {
  return { workflow, projection: projectWorkflow(workflow, { prior }) };
}

export type ReadOptions = Pick<CompactOptions, "llmModel" | "structuredModel">;

export interface EditReading {
  /** The edited workflow; undefined when the answer cannot be read as a workflow at all. */
  workflow?: Workflow;
  /** Problems of the answer itself (errors block it); the analyser's findings come on top (proposal.ts). */
  diagnostics: Diagnostic[];
  /** Answer compact id → IR id of the node it stands for (new nodes: their fresh id). */
  ids: Map<string, string>;
  added: string[];
  removed: string[];
}

/** Param fields a projection adds to the Chat2Workflow shorthand: an answer that leaves them out keeps them. */
const EXTENSIONS = ["model", "code_language"];

const ANSWER_ID = "§";

function matchNodesOf(raws: RawCompactNode[], edges: unknown[]): MatchNode[] {
  const c = new Converter({ anyOrder: true });
  for (const n of raws) {
    c.ids.set(n.cid, ANSWER_ID);
    c.types.set(n.cid, n.type);
  }
  const neighbors = new Map(raws.map((n) => [n.cid, new Set<string>()]));
  for (const e of edges) {
    if (!Array.isArray(e) || e.length !== 3) continue;
    const [s, t] = [compactIdOf(e[0]), compactIdOf(e[2])];
    if (s === undefined || t === undefined) continue;
    neighbors.get(s)?.add(t);
    neighbors.get(t)?.add(s);
  }
  return raws.map((n) => {
    const param = Object.fromEntries(Object.entries(n.param).filter(([k]) => !EXTENSIONS.includes(k)));
    const config = convertNodeConfig(c, { ...n, param }, ANSWER_ID)?.config ?? param;
    const baseline =
      convertNodeConfig(c, { ...n, param: Object.hasOwn(param, "dify") ? { dify: {} } : {} }, ANSWER_ID)?.config ?? {};
    const fields = new Map<string, string>();
    for (const [k, v] of Object.entries(config)) if (!deepEqual(v, baseline[k])) fields.set(k, canonicalJson(v));
    const parent = compactParent(c, n.cid);
    const def = nodeCatalogue.get(shorthandFor(n.type)?.registryType ?? n.type);
    return {
      cid: n.cid,
      ...(def?.entry || def?.exit ? { terminal: true } : {}),
      type: n.type,
      ...(n.title !== undefined ? { title: n.title } : {}),
      signature: canonicalJson([n.type, config]),
      fields,
      ...(parent.ok && parent.parentCid !== undefined ? { parent: parent.parentCid } : {}),
      neighbors: neighbors.get(n.cid) ?? new Set(),
    };
  });
}

function shownRaws(p: Projection): RawCompactNode[] {
  return p.compact.nodes_info.map((n) => ({
    cid: n.id,
    type: n.type,
    ...(n.title ? { title: n.title } : {}),
    param: n.param,
  }));
}

interface Plan {
  ids: Map<string, string>;
  /** Answer id → index of the stored node it edits. */
  baseIndex: Map<string, number>;
  retyped: Set<string>;
  removed: Set<number>;
}

/** Match, then give every answer node its IR id: the stored node's, or a fresh one. */
function plan(view: EditView, raws: RawCompactNode[], answerEdges: unknown[]): Plan {
  const p = view.projection;
  const m = matchNodes(matchNodesOf(shownRaws(p), p.compact.edges), matchNodesOf(raws, answerEdges));
  const ids = new Map<string, string>();
  const baseIndex = new Map<string, number>();
  for (const [a, s] of m.pairs) {
    ids.set(a, p.toIr.get(s)!);
    baseIndex.set(a, p.index.get(s)!);
  }
  const issuer = new IdIssuer(view.workflow);
  const probe = new Converter({});
  for (const n of raws) probe.types.set(n.cid, n.type);
  // Parents before children, so a new child can be named after its new container.
  const depth = (cid: string): number => {
    const parent = compactParent(probe, cid);
    return parent.ok && parent.parentCid !== undefined ? 1 + depth(parent.parentCid) : 0;
  };
  for (const n of [...raws].sort((x, y) => depth(x.cid) - depth(y.cid))) {
    if (ids.has(n.cid)) continue;
    const parent = compactParent(probe, n.cid);
    const parentId = parent.ok && parent.parentCid !== undefined ? ids.get(parent.parentCid) : undefined;
    ids.set(n.cid, issuer.issue(n.type, parentId, n.cid));
  }
  const kept = new Set(baseIndex.values());
  const removed = new Set(view.workflow.nodes.map((_, i) => i).filter((i) => !kept.has(i)));
  return { ids, baseIndex, retyped: m.retyped, removed };
}

/** Answer nodes with the fields the projection added filled in from the shown node when left out. */
function withExtensions(raws: RawCompactNode[], pl: Plan, view: EditView): RawCompactNode[] {
  const shown = new Map(view.projection.compact.nodes_info.map((n) => [view.projection.index.get(n.id)!, n]));
  return raws.map((n) => {
    const i = pl.baseIndex.get(n.cid);
    const s = i === undefined || pl.retyped.has(n.cid) ? undefined : shown.get(i);
    if (!s) return n;
    const param = { ...n.param };
    for (const k of EXTENSIONS) if (!Object.hasOwn(param, k) && Object.hasOwn(s.param, k)) param[k] = s.param[k];
    return { ...n, param, ...(n.title === undefined && s.title ? { title: s.title } : {}) };
  });
}

function convertSide(raws: RawCompactNode[], ids: ReadonlyMap<string, string>, opts: ReadOptions) {
  const c = new Converter({ ...opts, anyOrder: true });
  for (const n of raws) {
    c.ids.set(n.cid, ids.get(n.cid)!);
    c.types.set(n.cid, n.type);
  }
  return { nodes: convertNodes(c, raws), diagnostics: c.diags };
}

interface Built {
  byIndex: Map<number, WorkflowNode>;
  added: WorkflowNode[];
  /** IR ids of nodes kept exactly as stored. */
  unchanged: Set<string>;
  /** Answer ids of those nodes. */
  unchangedCids: Set<string>;
}

/** Each answer node as an IR node: stored (unchanged), merged (changed), or new. */
function buildNodes(view: EditView, raws: RawCompactNode[], pl: Plan, opts: ReadOptions, diags: Diagnostic[]): Built {
  const base = view.workflow;
  const shownIds = new Map(shownRaws(view.projection).map((n) => [n.cid, view.projection.toIr.get(n.cid)!]));
  const shownSide = convertSide(shownRaws(view.projection), shownIds, opts);
  const shown = shownSide.nodes;
  const shownByIndex = new Map([...shown].map(([cid, n]) => [view.projection.index.get(cid)!, n]));
  const answer = convertSide(raws, pl.ids, opts);
  const titles = new Set(base.nodes.map((n) => n.title).filter(Boolean));
  const built: Built = { byIndex: new Map(), added: [], unchanged: new Set(), unchangedCids: new Set() };
  const probe = new Converter({});
  for (const n of raws) probe.types.set(n.cid, n.type);
  for (const raw of raws) {
    const conv = answer.nodes.get(raw.cid);
    const i = pl.baseIndex.get(raw.cid);
    if (i === undefined) {
      if (!conv) continue;
      const parent = compactParent(probe, raw.cid);
      const parentId = parent.ok && parent.parentCid !== undefined ? pl.ids.get(parent.parentCid) : undefined;
      const title = raw.title ?? defaultTitle(conv.type, titles, nodeCatalogue);
      titles.add(title);
      built.added.push({ id: conv.id, type: conv.type, title, ...(parentId ? { parentId } : {}), config: conv.config });
      continue;
    }
    const stored = base.nodes[i]!;
    const before = shownByIndex.get(i);
    if (!conv) built.byIndex.set(i, stored);
    else if (pl.retyped.has(raw.cid))
      built.byIndex.set(i, { ...stored, type: conv.type, title: raw.title ?? stored.title, config: conv.config });
    else if (before && deepEqual(before.config, conv.config) && (raw.title ?? stored.title) === stored.title) {
      built.byIndex.set(i, stored);
      built.unchanged.add(stored.id);
      built.unchangedCids.add(raw.cid);
    } else {
      const config = mergeConfig(stored.config, before?.config ?? stored.config, conv.config);
      built.byIndex.set(i, { ...stored, title: raw.title ?? stored.title, config });
    }
  }
  diags.push(...newProblems(answer.diagnostics, shownSide.diagnostics, built.unchanged));
  return built;
}

/** Conversion problems that are the answer's: not of an unchanged node, and not already in what was shown. */
function newProblems(answer: Diagnostic[], shown: Diagnostic[], unchanged: Set<string>): Diagnostic[] {
  const known = new Set(shown.map((d) => `${d.code}\u0000${d.nodeId ?? ""}\u0000${d.field ?? ""}`));
  return answer.filter((d) => {
    if (d.nodeId !== undefined && unchanged.has(d.nodeId)) return false;
    return !known.has(`${d.code}\u0000${d.nodeId ?? ""}\u0000${d.field ?? ""}`);
  });
}

const edgeKey = (s: string, port: string, t: string) => `${s}\u0000${port}\u0000${t}`;

interface EdgeContext {
  ids: Map<string, string>;
  nodeOf(id: string): WorkflowNode | undefined;
  /** The answer node with this id is the shown node with this id. */
  sameNode(cid: string): boolean;
  /** ... and is kept as stored, so its port indices mean what they meant. */
  samePorts(cid: string): boolean;
}

/** The answer's edges as IR edges: those the stored workflow has keep their stored form. */
function buildEdges(view: EditView, answerEdges: unknown[], ctx: EdgeContext, diags: Diagnostic[]): WorkflowEdge[] {
  const { ids, nodeOf } = ctx;
  const wanted: Array<[string, string, string]> = [];
  const shown = new Map<string, number[]>();
  view.projection.compact.edges.forEach((e, i) => {
    shown.set(canonicalJson(e), [...(shown.get(canonicalJson(e)) ?? []), i]);
  });
  // Each early return ends this edge's reading only.
  const readEdge = (e: unknown, i: number) => {
    const field = `edges[${i}]`;
    const fail = (code: string, message: string, nodeId?: string) =>
      diags.push({ code, severity: "error", message, field, ...(nodeId ? { nodeId } : {}) });
    if (!Array.isArray(e) || e.length !== 3)
      return fail("compact.bad_edge", `${field} must be [source, port, target], got ${describeValue(e)}`);
    const [s, t] = [compactIdOf(e[0]), compactIdOf(e[2])];
    const src = s === undefined ? undefined : ids.get(s);
    const dst = t === undefined ? undefined : ids.get(t);
    // An edge answered as shown, from a node kept as stored (so its ports mean what they meant), is the
    // stored edge: this also keeps edges a broken file gives handles its nodes do not have.
    const stored =
      s !== undefined && t !== undefined && ctx.samePorts(s) && ctx.sameNode(t)
        ? shown.get(canonicalJson(e))?.shift()
        : undefined;
    if (stored !== undefined) {
      const b = view.workflow.edges[stored]!;
      return wanted.push([b.source, b.sourcePort, b.target]);
    }
    if (!src || !dst)
      return fail(
        "compact.bad_edge",
        `${field} joins ${describeValue(e[0])} → ${describeValue(e[2])}, but ${describeValue(!src ? e[0] : e[2])} is not a node`,
      );
    // A handle the node does not have is shown as text (projectWorkflow); answered back on an edge from
    // the same node, it is that stored handle, even when the node itself was edited.
    if (
      typeof e[1] === "string" &&
      !/^\d+$/.test(e[1].trim()) &&
      view.workflow.edges.some((b) => b.source === src && b.sourcePort === e[1])
    )
      return wanted.push([src, e[1], dst]);
    const port =
      typeof e[1] === "number"
        ? e[1]
        : typeof e[1] === "string" && /^\d+$/.test(e[1].trim())
          ? Number(e[1])
          : Number.NaN;
    const node = nodeOf(src);
    if (!Number.isInteger(port) || port < 0 || !node)
      return fail("compact.bad_port", `${field} port must be a non-negative integer, got ${describeValue(e[1])}`, src);
    const handle = portHandle(node, port, nodeCatalogue);
    if (handle === undefined)
      return fail(
        "compact.bad_port",
        `${field}: port ${port} does not exist on ${s} (it has ${describeNode(node, nodeCatalogue).ports.length})`,
        src,
      );
    wanted.push([src, handle, dst]);
  };
  answerEdges.forEach((e, i) => {
    readEdge(e, i);
  });
  const counts = new Map<string, number>();
  for (const [s, p, t] of wanted) counts.set(edgeKey(s, p, t), (counts.get(edgeKey(s, p, t)) ?? 0) + 1);
  const out: WorkflowEdge[] = [];
  for (const b of view.workflow.edges) {
    const k = edgeKey(b.source, b.sourcePort, b.target);
    if ((counts.get(k) ?? 0) === 0) continue;
    counts.set(k, counts.get(k)! - 1);
    out.push(b);
  }
  const edgeId = edgeIdIssuer(view.workflow.edges);
  for (const [s, p, t] of wanted) {
    const k = edgeKey(s, p, t);
    if ((counts.get(k) ?? 0) === 0) continue;
    counts.set(k, counts.get(k)! - 1);
    out.push({ id: edgeId(`${s}-${p}-${t}-target`), source: s, sourcePort: p, target: t });
  }
  return out;
}

/**
 * Fresh edge ids in Dify's style, `<base>`, then `<base>-2`, `-3`…: each base remembers the suffix it
 * reached, so n duplicates take n steps in all, not n² (issue 28).
 */
function edgeIdIssuer(stored: readonly WorkflowEdge[]): (base: string) => string {
  const used = new Set(stored.flatMap((e) => (e.id ? [e.id] : [])));
  const next = new Map<string, number>();
  return (base) => {
    let n = next.get(base) ?? 1;
    let id = n === 1 ? base : `${base}-${n}`;
    while (used.has(id)) id = `${base}-${++n}`;
    next.set(base, n + 1);
    used.add(id);
    return id;
  };
}

/** Stored nodes keep their order; each new node goes after the node the answer lists before it. */
function withNewNodes(kept: WorkflowNode[], added: WorkflowNode[], answerOrder: string[]): WorkflowNode[] {
  const out = [...kept];
  for (const n of added) {
    const before = answerOrder
      .slice(0, answerOrder.indexOf(n.id))
      .reverse()
      .find((id) => out.some((x) => x.id === id));
    const at = before === undefined ? -1 : out.findIndex((x) => x.id === before);
    out.splice(at + 1, 0, n);
  }
  return out;
}

function shapeProblem(answer: unknown): Diagnostic | undefined {
  const d = (code: string, message: string): Diagnostic => ({ code, severity: "error", message, field: "workflow" });
  if (!isPlainObject(answer))
    return d("compact.not_object", "the workflow JSON must be an object with nodes_info and edges");
  if (!Array.isArray(answer.nodes_info) || answer.nodes_info.length === 0)
    return d("compact.no_nodes", "nodes_info must be a non-empty list");
  if (answer.edges !== undefined && !Array.isArray(answer.edges))
    return d("compact.bad_edges", "edges must be a list of [source, port, target]");
  // Proposals and the agent's tools reach here without the repair loop's caps.
  const tooLarge = graphTooLarge(answer);
  if (tooLarge) return d("compact.too_large", tooLarge);
  // Reading recurses over params; a workflow nests about 12 levels.
  const deep = tooDeepAt(answer);
  if (deep)
    return d(
      "compact.too_deep",
      `the workflow JSON nests deeper than ${MAX_JSON_DEPTH} levels (at ${deep.slice(0, 120)})`,
    );
  return undefined;
}

/**
 * A workflow whose nodes share an id cannot be edited safely: an answer's node could stand for any of them.
 * Some files in the wild have this (every node given one timestamp id).
 */
function ambiguousIds(wf: Workflow): Diagnostic | undefined {
  const seen = new Map<string, number>();
  for (const n of wf.nodes) seen.set(n.id, (seen.get(n.id) ?? 0) + 1);
  const dup = [...seen].find(([, k]) => k > 1);
  if (!dup) return undefined;
  return {
    code: "edit.duplicate_ids",
    severity: "error",
    nodeId: dup[0],
    field: "id",
    message: `the current workflow gives ${dup[1]} nodes the id "${dup[0]}", so an edit cannot tell them apart; give each node its own id first (nothing changed)`,
  };
}

/** Read `answer` (compact JSON) as an edit of `view`. */
export function readEdit(view: EditView, answer: unknown, opts: ReadOptions = {}): EditReading {
  const shape = ambiguousIds(view.workflow) ?? shapeProblem(answer);
  if (shape) return { diagnostics: [shape], ids: new Map(), added: [], removed: [] };
  const a = answer as JsonObject;
  const c = new Converter({ anyOrder: true });
  const raws0 = readNodes(c, a.nodes_info as unknown[]);
  const diagnostics = [...c.diags];
  const edges = (a.edges as unknown[] | undefined) ?? [];
  const pl = plan(view, raws0, edges);
  const raws = withExtensions(raws0, pl, view);
  const built = buildNodes(view, raws, pl, opts, diagnostics);
  const byId = new Map<string, WorkflowNode>([...built.byIndex.values(), ...built.added].map((n) => [n.id, n]));
  const nodes = withNewNodes(
    view.workflow.nodes.flatMap((n, i) => (pl.removed.has(i) ? [] : [built.byIndex.get(i) ?? n])),
    built.added,
    raws.map((n) => pl.ids.get(n.cid)!),
  );
  const shownCids = new Set(view.projection.toIr.keys());
  const outEdges = buildEdges(
    view,
    edges,
    {
      ids: pl.ids,
      nodeOf: (id) => byId.get(id),
      sameNode: (cid) => shownCids.has(cid) && pl.baseIndex.get(cid) === view.projection.index.get(cid),
      samePorts: (cid) =>
        shownCids.has(cid) && pl.baseIndex.get(cid) === view.projection.index.get(cid) && built.unchangedCids.has(cid),
    },
    diagnostics,
  );
  const draft = { ...view.workflow, nodes, edges: outEdges };
  const parsed = WorkflowSchema.safeParse(draft);
  const removed = [...pl.removed].map((i) => view.workflow.nodes[i]!.id);
  const added = built.added.map((n) => n.id);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 10))
      diagnostics.push({
        code: "compact.schema",
        severity: "error",
        message: `the edited workflow breaks the IR schema at ${issue.path.join(".")}: ${issue.message}`,
        field: issue.path.join("."),
      });
    return { diagnostics, ids: pl.ids, added, removed };
  }
  // Keep the stored objects (zod copies them): an unchanged workflow comes back as it was.
  return { workflow: placeNewNodes(draft, new Set(added)), diagnostics, ids: pl.ids, added, removed };
}
