/**
 * Typed graph edits over Weft workflows, applied immutably. Each edit must leave a workflow that the
 * analyser accepts; otherwise it is rejected with the diagnostics (the edit's own structural problems
 * as `edit.*` codes, or the analyser's errors), and the input workflow is untouched.
 */
import { z } from "zod";
import { analyse } from "../analysis/index.js";
import { describeNode } from "../ir/describe.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import { replaceTemplateRefs } from "../ir/selector.js";
import { type Workflow, type WorkflowEdge, type WorkflowNode, WorkflowSchema } from "../ir/workflow.js";
import "../nodes/index.js";
import { promptByRef } from "../mine/prompts.js";

const NewNode = z.object({
  id: z.string().regex(/^[A-Za-z0-9_]{1,50}$/, "ids are 1–50 letters, digits or _"),
  type: z.string().min(1),
  title: z.string().optional(),
  config: z.record(z.string(), z.unknown()).default({}),
});
export type NewNode = z.infer<typeof NewNode>;

const ConditionIn = z.object({
  selector: z.array(z.string()).min(1),
  operator: z.string().min(1),
  value: z.unknown().optional(),
});

export const EditSchema = z.discriminatedUnion("kind", [
  /** Add a node; `after` inserts it between a node and its successors, `before` between a node and its predecessors. */
  z.object({ kind: z.literal("add_node"), node: NewNode, after: z.string().optional(), before: z.string().optional() }),
  /** Remove a node, connecting its predecessors to its successors and dropping references to it. */
  z.object({ kind: z.literal("remove_node"), id: z.string() }),
  /** Replace a node's type/title/config (ids and edges stay); `merge` keeps config fields not given. */
  z.object({
    kind: z.literal("replace_node"),
    id: z.string(),
    type: z.string().optional(),
    title: z.string().optional(),
    config: z.record(z.string(), z.unknown()).default({}),
    merge: z.boolean().default(true),
  }),
  z.object({
    kind: z.literal("add_edge"),
    source: z.string(),
    sourcePort: z.string().default("source"),
    target: z.string(),
  }),
  z.object({
    kind: z.literal("remove_edge"),
    source: z.string(),
    sourcePort: z.string().default("source"),
    target: z.string(),
  }),
  z.object({
    kind: z.literal("reconnect_edge"),
    source: z.string(),
    sourcePort: z.string().default("source"),
    target: z.string(),
    to: z.object({ source: z.string().optional(), sourcePort: z.string().optional(), target: z.string().optional() }),
  }),
  /** Add a case to an if-else with a new branch node that joins at `join`. */
  z.object({
    kind: z.literal("add_branch"),
    ifElse: z.string(),
    conditions: z.array(ConditionIn).min(1),
    logical_operator: z.enum(["and", "or"]).default("and"),
    node: NewNode,
    join: z.string(),
  }),
  /** Replace the conditions of an if-else case. */
  z.object({
    kind: z.literal("refine_branch"),
    ifElse: z.string(),
    caseId: z.string(),
    conditions: z.array(ConditionIn).min(1),
    logical_operator: z.enum(["and", "or"]).optional(),
  }),
  /** A new node running alongside: `from` → node → `join`; `join` is given the node's output. */
  z.object({ kind: z.literal("add_parallel_branch"), from: z.string(), node: NewNode, join: z.string() }),
  /** Move a chain of top-level nodes into a loop that repeats until the last one gave a non-error result. */
  z.object({
    kind: z.literal("wrap_in_retry_loop"),
    nodes: z.array(z.string()).min(1),
    rounds: z.number().int().min(1).max(20).default(3),
    id: z.string().optional(),
  }),
  /** New prompt for an LLM node (system text, or a library template `role/variant`), or a tool-call instruction. */
  z.object({
    kind: z.literal("refine_prompt"),
    id: z.string(),
    system: z.string().optional(),
    template: z.string().optional(),
    user: z.string().optional(),
    instruction: z.string().optional(),
  }),
]);
export type Edit = z.input<typeof EditSchema>;
type E = z.infer<typeof EditSchema>;
export const EDIT_KINDS = EditSchema.options.map((o) => o.shape.kind.value);

export type EditOutcome =
  | { ok: true; workflow: Workflow; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

class EditFailure extends Error {
  constructor(readonly diag: Diagnostic) {
    super(diag.message);
  }
}

function fail(code: string, message: string, nodeId?: string, field?: string): never {
  throw new EditFailure({
    code,
    severity: "error",
    message,
    ...(nodeId ? { nodeId } : {}),
    ...(field ? { field } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// helpers over a mutable draft

function nodeOf(wf: Workflow, id: string, field = "id"): WorkflowNode {
  const n = wf.nodes.find((x) => x.id === id);
  if (!n) fail("edit.unknown_node", `no node "${id}" in the workflow`, id, field);
  return n;
}

function mainOutput(n: WorkflowNode): string | undefined {
  const preferred: Record<string, string> = {
    "tool-call": "result",
    llm: "text",
    "variable-aggregator": "output",
    loop: "last",
    "template-transform": "output",
    tool: "text",
  };
  const p = preferred[n.type];
  // A copy: describeNode caches per node object, and edits mutate drafts in place.
  const outs = describeNode({ ...n }).outputs.map((o) => o.name);
  if (p && outs.includes(p)) return p;
  return outs.find((o) => !o.startsWith("sys."));
}

/** Make `target` read `sel`: tool-call context, llm user prompt, aggregator alternatives. */
function publishTo(target: WorkflowNode, sel: string[], variable: string): void {
  const c = target.config as Record<string, any>;
  if (target.type === "tool-call") {
    const ctx = Array.isArray(c.context) ? c.context : [];
    if (!ctx.some((b: any) => JSON.stringify(b?.value_selector) === JSON.stringify(sel)))
      ctx.push({ variable, value_selector: sel });
    c.context = ctx;
  } else if (target.type === "llm" && Array.isArray(c.prompt_template)) {
    const ref = `{{#${sel.join(".")}#}}`;
    const msgs = c.prompt_template as Array<{ role?: string; text?: string }>;
    if (msgs.some((m) => (m.text ?? "").includes(ref))) return;
    const user = [...msgs].reverse().find((m) => m.role === "user");
    if (user) user.text = `${user.text ?? ""}\n\n### ${variable}\n${ref}`;
    else msgs.push({ role: "user", text: `### ${variable}\n${ref}` });
  } else if (target.type === "variable-aggregator") {
    const vars = Array.isArray(c.variables) ? c.variables : [];
    if (!vars.some((v: unknown) => JSON.stringify(v) === JSON.stringify(sel))) vars.push(sel);
    c.variables = vars;
  }
}

/** A model for new LLM/tool-call nodes that do not name one: the workflow's first. */
function fillDefaults(wf: Workflow, node: WorkflowNode, readFrom?: WorkflowNode): void {
  const c = node.config as Record<string, any>;
  if ((node.type === "llm" || node.type === "tool-call") && !c.model?.name) {
    const donor = wf.nodes.find((n) => (n.type === "llm" || n.type === "tool-call") && (n.config as any).model?.name);
    if (donor) c.model = structuredClone((donor.config as any).model);
  }
  if (node.type === "tool-call") {
    if (!Array.isArray(c.context) || c.context.length === 0) {
      const ctx: Array<{ variable: string; value_selector: string[] }> = [];
      const start = wf.nodes.find((n) => n.type === "start");
      const firstVar = start ? (start.config as any).variables?.[0]?.variable : undefined;
      if (start && firstVar) ctx.push({ variable: "task", value_selector: [start.id, firstVar] });
      if (readFrom && readFrom.type !== "start") {
        const out = mainOutput(readFrom);
        if (out) ctx.push({ variable: `${readFrom.id}_${out}`, value_selector: [readFrom.id, out] });
      }
      c.context = ctx;
    }
    if (provider(wf) !== undefined && c.provider_id === undefined) c.provider_id = provider(wf);
  }
  if (node.type === "llm" && !Array.isArray(c.prompt_template)) c.prompt_template = [{ role: "user", text: "" }];
}

function provider(wf: Workflow): string | undefined {
  const tc = wf.nodes.find((n) => n.type === "tool-call");
  const p = tc ? (tc.config as any).provider_id : undefined;
  return typeof p === "string" ? p : undefined;
}

function addNewNode(wf: Workflow, nn: NewNode, parentId?: string): WorkflowNode {
  if (wf.nodes.some((n) => n.id === nn.id))
    fail("edit.duplicate_id", `a node "${nn.id}" already exists`, nn.id, "node.id");
  const node: WorkflowNode = {
    id: nn.id,
    type: nn.type,
    title: nn.title ?? nn.id,
    config: structuredClone(nn.config),
    ...(parentId ? { parentId } : {}),
  };
  wf.nodes.push(node);
  return node;
}

function edgeKey(e: { source: string; sourcePort?: string; target: string }): string {
  return `${e.source}\u0000${e.sourcePort ?? "source"}\u0000${e.target}`;
}

function pushEdge(wf: Workflow, source: string, sourcePort: string, target: string): void {
  if (wf.edges.some((e) => edgeKey(e) === edgeKey({ source, sourcePort, target }))) return;
  wf.edges.push({ id: `${source}-${sourcePort}-${target}`, source, sourcePort, target });
}

function findEdge(wf: Workflow, e: { source: string; sourcePort: string; target: string }): number {
  const i = wf.edges.findIndex((x) => edgeKey(x) === edgeKey(e));
  if (i < 0) fail("edit.unknown_edge", `no edge ${e.source}:${e.sourcePort} → ${e.target}`, e.source, "edge");
  return i;
}

/** Rewrites selector arrays and `{{#…#}}` references in every config (except inside `skip`). */
function rewriteRefs(wf: Workflow, fn: (sel: string[]) => string[] | null, skip: Set<string> = new Set()): void {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string")
      return replaceTemplateRefs(v, (sel, raw) => {
        const r = fn(sel);
        return r === null ? "" : r === sel ? raw : `{{#${r.join(".")}#}}`;
      });
    if (Array.isArray(v)) {
      if (v.length >= 2 && v.every((x) => typeof x === "string")) {
        const r = fn(v as string[]);
        return r === null ? [] : r;
      }
      return v.map(walk);
    }
    if (v && typeof v === "object") {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = walk(x);
      return o;
    }
    return v;
  };
  for (const n of wf.nodes) if (!skip.has(n.id)) n.config = walk(n.config) as Record<string, unknown>;
}

/** Drop bindings that point at a removed node (context entries, aggregator alternatives). */
function scrubBindings(wf: Workflow, removed: Set<string>): void {
  for (const n of wf.nodes) {
    const c = n.config as Record<string, any>;
    if (Array.isArray(c.context)) c.context = c.context.filter((b: any) => !removed.has(b?.value_selector?.[0]));
    if (n.type === "variable-aggregator" && Array.isArray(c.variables))
      c.variables = c.variables.filter((s: any) => !removed.has(s?.[0]));
  }
  rewriteRefs(wf, (sel) => (removed.has(sel[0]!) ? null : sel));
  // Empty selector lists left by the rewrite (e.g. a binding inside an unknown field) are dropped.
  for (const n of wf.nodes) {
    const c = n.config as Record<string, any>;
    if (Array.isArray(c.context))
      c.context = c.context.filter((b: any) => Array.isArray(b?.value_selector) && b.value_selector.length > 0);
    if (n.type === "variable-aggregator" && Array.isArray(c.variables))
      c.variables = c.variables.filter((s: any) => Array.isArray(s) && s.length > 0);
  }
}

function conditionsOf(list: z.infer<typeof ConditionIn>[]) {
  return list.map((c) => ({
    variable_selector: c.selector,
    comparison_operator: c.operator,
    ...(c.value !== undefined ? { value: c.value } : {}),
  }));
}

// ---------------------------------------------------------------------------------------------
// the edits

function apply(wf: Workflow, e: E): void {
  switch (e.kind) {
    case "add_node": {
      if (e.after && e.before) fail("edit.bad_position", "give `after` or `before`, not both", e.node.id);
      const anchor = e.after ? nodeOf(wf, e.after, "after") : e.before ? nodeOf(wf, e.before, "before") : undefined;
      const node = addNewNode(wf, e.node, anchor?.parentId);
      if (e.after && anchor) {
        const outs = wf.edges.filter((x) => x.source === anchor.id);
        if (outs.length === 0)
          fail("edit.bad_position", `"${anchor.id}" has no successors to insert before`, anchor.id, "after");
        const ports = new Set(outs.map((x) => x.sourcePort));
        if (ports.size > 1)
          fail(
            "edit.bad_position",
            `"${anchor.id}" branches; use add_branch or insert before a branch's node`,
            anchor.id,
            "after",
          );
        fillDefaults(wf, node, anchor);
        for (const x of outs) x.source = node.id;
        for (const x of outs) x.sourcePort = "source";
        pushEdge(wf, anchor.id, [...ports][0]!, node.id);
        const out = mainOutput(node);
        if (out) for (const x of outs) publishTo(nodeOf(wf, x.target), [node.id, out], `${node.id}_${out}`);
      } else if (e.before && anchor) {
        const ins = wf.edges.filter((x) => x.target === anchor.id);
        if (ins.length === 0)
          fail("edit.bad_position", `"${anchor.id}" has no predecessors to insert after`, anchor.id, "before");
        const pred = ins.length === 1 ? nodeOf(wf, ins[0]!.source) : undefined;
        fillDefaults(wf, node, pred);
        for (const x of ins) x.target = node.id;
        pushEdge(wf, node.id, "source", anchor.id);
        const out = mainOutput(node);
        if (out) publishTo(anchor, [node.id, out], `${node.id}_${out}`);
      } else fillDefaults(wf, node);
      return;
    }
    case "remove_node": {
      const n = nodeOf(wf, e.id);
      if (n.type === "start" || n.type === "end")
        fail("edit.protected_node", `the ${n.type} node cannot be removed`, n.id);
      const removed = new Set([n.id, ...wf.nodes.filter((x) => x.parentId === n.id).map((x) => x.id)]);
      const ins = wf.edges.filter((x) => x.target === n.id);
      const outs = wf.edges.filter((x) => x.source === n.id);
      if (new Set(outs.map((x) => x.sourcePort)).size > 1)
        fail("edit.bad_position", `"${n.id}" branches; remove its branches first`, n.id);
      wf.edges = wf.edges.filter((x) => !removed.has(x.source) && !removed.has(x.target));
      for (const i of ins) for (const o of outs) pushEdge(wf, i.source, i.sourcePort, o.target);
      wf.nodes = wf.nodes.filter((x) => !removed.has(x.id));
      scrubBindings(wf, removed);
      return;
    }
    case "replace_node": {
      const n = nodeOf(wf, e.id);
      if ((e.type ?? n.type) !== n.type && (n.type === "start" || n.type === "end"))
        fail("edit.protected_node", `the ${n.type} node keeps its type`, n.id, "type");
      const oldMain = mainOutput(n);
      const typeChanged = (e.type ?? n.type) !== n.type;
      n.type = e.type ?? n.type;
      if (e.title !== undefined) n.title = e.title;
      n.config = e.merge && !typeChanged ? { ...n.config, ...structuredClone(e.config) } : structuredClone(e.config);
      fillDefaults(wf, n);
      // Readers of the old main output read the new type's main output.
      const newMain = mainOutput(n);
      if (typeChanged && oldMain && newMain && oldMain !== newMain)
        rewriteRefs(
          wf,
          (sel) => (sel[0] === n.id && sel[1] === oldMain ? [n.id, newMain, ...sel.slice(2)] : sel),
          new Set([n.id]),
        );
      return;
    }
    case "add_edge":
      nodeOf(wf, e.source, "source");
      nodeOf(wf, e.target, "target");
      if (wf.edges.some((x) => edgeKey(x) === edgeKey(e)))
        fail("edit.duplicate_edge", `edge ${e.source}:${e.sourcePort} → ${e.target} exists`, e.source, "edge");
      pushEdge(wf, e.source, e.sourcePort, e.target);
      return;
    case "remove_edge":
      wf.edges.splice(findEdge(wf, e), 1);
      return;
    case "reconnect_edge": {
      const i = findEdge(wf, e);
      const old = wf.edges[i]!;
      const next: WorkflowEdge = {
        ...old,
        source: e.to.source ?? old.source,
        sourcePort: e.to.sourcePort ?? old.sourcePort,
        target: e.to.target ?? old.target,
      };
      nodeOf(wf, next.source, "to.source");
      nodeOf(wf, next.target, "to.target");
      next.id = `${next.source}-${next.sourcePort}-${next.target}`;
      wf.edges[i] = next;
      return;
    }
    case "add_branch": {
      const ie = nodeOf(wf, e.ifElse, "ifElse");
      if (ie.type !== "if-else")
        fail("edit.wrong_type", `"${ie.id}" is a ${ie.type} node, not an if-else`, ie.id, "ifElse");
      const join = nodeOf(wf, e.join, "join");
      const c = ie.config as Record<string, any>;
      const cases: any[] = Array.isArray(c.cases) ? c.cases : [];
      const used = new Set(cases.map((k) => String(k.case_id)));
      let k = cases.length + 1;
      while (used.has(`c${k}`)) k++;
      const caseId = `c${k}`;
      cases.push({ case_id: caseId, logical_operator: e.logical_operator, conditions: conditionsOf(e.conditions) });
      c.cases = cases;
      const node = addNewNode(wf, e.node, ie.parentId);
      fillDefaults(
        wf,
        node,
        wf.nodes.find((n) => n.id === wf.edges.find((x) => x.target === ie.id)?.source),
      );
      pushEdge(wf, ie.id, caseId, node.id);
      pushEdge(wf, node.id, "source", join.id);
      const out = mainOutput(node);
      if (out) publishTo(join, [node.id, out], `${node.id}_${out}`);
      return;
    }
    case "refine_branch": {
      const ie = nodeOf(wf, e.ifElse, "ifElse");
      if (ie.type !== "if-else")
        fail("edit.wrong_type", `"${ie.id}" is a ${ie.type} node, not an if-else`, ie.id, "ifElse");
      const cases: any[] = Array.isArray((ie.config as any).cases) ? (ie.config as any).cases : [];
      const k = cases.find((x) => String(x.case_id) === e.caseId);
      if (!k) fail("edit.unknown_case", `if-else "${ie.id}" has no case "${e.caseId}"`, ie.id, "caseId");
      k.conditions = conditionsOf(e.conditions);
      if (e.logical_operator) k.logical_operator = e.logical_operator;
      return;
    }
    case "add_parallel_branch": {
      const from = nodeOf(wf, e.from, "from");
      const join = nodeOf(wf, e.join, "join");
      if (from.parentId !== join.parentId)
        fail("edit.bad_position", "`from` and `join` must be in the same container", from.id, "join");
      const node = addNewNode(wf, e.node, from.parentId);
      fillDefaults(wf, node, from);
      const ports = new Set(wf.edges.filter((x) => x.source === from.id).map((x) => x.sourcePort));
      pushEdge(wf, from.id, ports.size === 1 ? [...ports][0]! : "source", node.id);
      pushEdge(wf, node.id, "source", join.id);
      const out = mainOutput(node);
      if (out) publishTo(join, [node.id, out], `${node.id}_${out}`);
      return;
    }
    case "wrap_in_retry_loop": {
      const chain = e.nodes.map((id, i) => nodeOf(wf, id, `nodes[${i}]`));
      for (const n of chain) {
        if (n.parentId)
          fail(
            "edit.bad_position",
            `"${n.id}" is inside a container; only top-level nodes can be wrapped`,
            n.id,
            "nodes",
          );
        if (n.type === "start" || n.type === "end")
          fail("edit.protected_node", `the ${n.type} node cannot be wrapped`, n.id, "nodes");
        if (n.type === "loop" || n.type === "iteration")
          fail("edit.bad_position", `"${n.id}" is a container; loops do not nest here`, n.id, "nodes");
      }
      const ids = new Set(chain.map((n) => n.id));
      for (let i = 0; i + 1 < chain.length; i++) {
        const outs = wf.edges.filter((x) => x.source === chain[i]!.id);
        if (outs.length !== 1 || outs[0]!.target !== chain[i + 1]!.id)
          fail("edit.not_a_chain", `"${chain[i]!.id}" must lead only to "${chain[i + 1]!.id}"`, chain[i]!.id, "nodes");
        if (wf.edges.some((x) => x.target === chain[i + 1]!.id && x.source !== chain[i]!.id))
          fail(
            "edit.not_a_chain",
            `"${chain[i + 1]!.id}" has inputs from outside the chain`,
            chain[i + 1]!.id,
            "nodes",
          );
      }
      const first = chain[0]!;
      const last = chain[chain.length - 1]!;
      const loopId = e.id ?? `retry_${first.id}`.slice(0, 50);
      if (wf.nodes.some((n) => n.id === loopId))
        fail("edit.duplicate_id", `a node "${loopId}" already exists`, loopId, "id");
      const startId = `${loopId}_start`.slice(0, 50);
      const saveId = `${loopId}_save`.slice(0, 50);
      const out = mainOutput(last);
      if (!out) fail("edit.no_output", `"${last.id}" has no output to retry on`, last.id, "nodes");
      // Readers outside the loop now read the loop's kept result.
      rewriteRefs(wf, (sel) => (sel[0] === last.id && sel[1] === out ? [loopId, "last", ...sel.slice(2)] : sel), ids);
      for (const x of wf.edges) {
        if (x.target === first.id) x.target = loopId;
        if (x.source === last.id) {
          x.source = loopId;
          x.sourcePort = "source";
        }
      }
      for (const n of chain) n.parentId = loopId;
      wf.nodes.push({ id: startId, type: "loop-start", title: "Loop start", parentId: loopId, config: {} });
      wf.nodes.push({
        id: saveId,
        type: "assigner",
        title: "Keep the result",
        parentId: loopId,
        config: {
          version: "2",
          items: [
            {
              variable_selector: [loopId, "last"],
              input_type: "variable",
              operation: "over-write",
              value: [last.id, out],
            },
          ],
        },
      });
      wf.nodes.push({
        id: loopId,
        type: "loop",
        title: "Retry until a result",
        config: {
          start_node_id: startId,
          loop_count: e.rounds,
          logical_operator: "and",
          break_conditions: [
            { variable_selector: [loopId, "last"], comparison_operator: "not empty" },
            { variable_selector: [loopId, "last"], comparison_operator: "not contains", value: "ERROR:" },
          ],
          loop_variables: [{ label: "last", var_type: "string", value_type: "constant", value: "" }],
        },
      });
      pushEdge(wf, startId, "source", first.id);
      pushEdge(wf, last.id, "source", saveId);
      return;
    }
    case "refine_prompt": {
      const n = nodeOf(wf, e.id);
      const c = n.config as Record<string, any>;
      if (n.type === "tool-call") {
        if (e.instruction === undefined && e.system === undefined)
          fail("edit.missing_field", "a tool-call node's prompt is its `instruction`", n.id, "instruction");
        c.instruction = e.instruction ?? e.system;
        return;
      }
      if (n.type !== "llm")
        fail(
          "edit.wrong_type",
          `"${n.id}" is a ${n.type} node; prompts are refined on llm and tool-call nodes`,
          n.id,
          "id",
        );
      let system = e.system;
      if (e.template) {
        const t = promptByRef(e.template);
        if (!t) fail("edit.unknown_template", `no prompt template "${e.template}"`, n.id, "template");
        system = t.system;
      }
      if (system === undefined && e.user === undefined)
        fail("edit.missing_field", "give `system`, `template` or `user`", n.id, "system");
      const msgs: Array<{ role: string; text: string }> = Array.isArray(c.prompt_template) ? c.prompt_template : [];
      if (system !== undefined) {
        const sys = msgs.find((m) => m.role === "system");
        // Keep the tool list the builder appended to a planning prompt.
        const tail = sys?.text.match(/\n\nTools:\n[\s\S]*$/)?.[0] ?? "";
        if (sys) sys.text = `${system}${tail}`;
        else msgs.unshift({ role: "system", text: system });
      }
      if (e.user !== undefined) {
        const user = [...msgs].reverse().find((m) => m.role === "user");
        if (user) user.text = e.user;
        else msgs.push({ role: "user", text: e.user });
      }
      c.prompt_template = msgs;
      return;
    }
  }
}

/** One edit. The input is never modified. */
export function applyEdit(workflow: Workflow, edit: Edit): EditOutcome {
  const parsed = EditSchema.safeParse(edit);
  if (!parsed.success) {
    return {
      ok: false,
      diagnostics: parsed.error.issues.map((i) => ({
        code: "edit.invalid",
        severity: "error" as const,
        field: i.path.join("."),
        message: i.message,
      })),
    };
  }
  const draft = structuredClone(workflow);
  try {
    apply(draft, parsed.data);
  } catch (err) {
    if (err instanceof EditFailure) return { ok: false, diagnostics: [err.diag] };
    throw err;
  }
  const schema = WorkflowSchema.safeParse(draft);
  if (!schema.success)
    return {
      ok: false,
      diagnostics: schema.error.issues.map((i) => ({
        code: "edit.schema",
        severity: "error" as const,
        field: i.path.join("."),
        message: i.message,
      })),
    };
  const { diagnostics } = analyse(schema.data);
  if (diagnostics.some((d) => d.severity === "error"))
    return { ok: false, diagnostics: diagnostics.filter((d) => d.severity === "error") };
  return { ok: true, workflow: schema.data, diagnostics };
}

export interface EditsOutcome {
  workflow: Workflow;
  applied: Edit[];
  rejected: Array<{ index: number; edit: Edit; diagnostics: Diagnostic[] }>;
}

/** Applies edits in order; each is checked on its own, and a rejected one is skipped (and reported). */
export function applyEdits(workflow: Workflow, edits: readonly Edit[]): EditsOutcome {
  let wf = workflow;
  const applied: Edit[] = [];
  const rejected: EditsOutcome["rejected"] = [];
  edits.forEach((edit, index) => {
    const r = applyEdit(wf, edit);
    if (r.ok) {
      wf = r.workflow;
      applied.push(edit);
    } else rejected.push({ index, edit, diagnostics: r.diagnostics });
  });
  return { workflow: wf, applied, rejected };
}

/** One line per edit, for logs and tables. */
export function describeEdit(e: Edit): string {
  switch (e.kind) {
    case "add_node":
      return `add ${e.node.type} ${e.node.id}${e.after ? ` after ${e.after}` : e.before ? ` before ${e.before}` : ""}`;
    case "remove_node":
      return `remove ${e.id}`;
    case "replace_node":
      return `replace ${e.id}${e.type ? ` as ${e.type}` : ""}`;
    case "add_edge":
      return `edge +${e.source}→${e.target}`;
    case "remove_edge":
      return `edge −${e.source}→${e.target}`;
    case "reconnect_edge":
      return `edge ${e.source}→${e.target} ⇒ ${e.to.source ?? e.source}→${e.to.target ?? e.target}`;
    case "add_branch":
      return `branch +${e.node.id} on ${e.ifElse}`;
    case "refine_branch":
      return `branch ${e.ifElse}/${e.caseId} refined`;
    case "add_parallel_branch":
      return `parallel +${e.node.id} from ${e.from}`;
    case "wrap_in_retry_loop":
      return `retry loop around ${e.nodes.join(",")}`;
    case "refine_prompt":
      return `prompt of ${e.id}${e.template ? ` ← ${e.template}` : ""}`;
  }
}
