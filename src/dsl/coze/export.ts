import type { Workflow, WorkflowEdge, WorkflowNode } from "../../ir/workflow.js";
import { BranchAnalysis } from "./branches.js";
import { ExportContext, type ExportCozeOptions } from "./context.js";
import { CozeExportError, type CozeProblem, Unsupported, unsupported } from "./errors.js";
import {
  type ConvertedNode,
  convertAggregator,
  convertAnswer,
  convertClassifier,
  convertCode,
  convertHttp,
  convertIfElse,
  convertIteration,
  convertKnowledge,
  convertLlm,
  convertStart,
  convertTemplateTransform,
  endParams,
  exitAnswering,
  exitReturning,
} from "./nodes.js";
import {
  CanvasSchema,
  type CozeCanvas,
  type CozeEdge,
  type CozeNode,
  type CozeParam,
  ENTRY_ID,
  EXIT_ID,
} from "./schema.js";

export type { ExportCozeOptions };

export interface CozeExportResult {
  canvas: CozeCanvas;
  /** Weft node id -> Coze node id. */
  ids: Record<string, string>;
  /** What the user must do or know in Coze (model ids, dataset ids, approximations). */
  notes: string[];
}

type Converter = (node: WorkflowNode, ctx: ExportContext) => ConvertedNode;

const CONVERTERS: Record<string, Converter> = {
  start: convertStart,
  answer: convertAnswer,
  llm: convertLlm,
  code: convertCode,
  "if-else": convertIfElse,
  "question-classifier": convertClassifier,
  "template-transform": convertTemplateTransform,
  "variable-aggregator": convertAggregator,
  "variable-assigner": convertAggregator,
  "http-request": convertHttp,
  "knowledge-retrieval": convertKnowledge,
};

/** Why a Weft node type has no Coze counterpart (shown in the error). */
const UNSUPPORTED_TYPES: Record<string, string> = {
  tool: "Dify tools have no Coze plugin id; recreate the tool as a Coze plugin, or call its API with an HTTP node",
  agent: "Dify agent strategies have no exact Coze equivalent",
  "parameter-extractor": "Coze has no parameter extractor; an LLM in JSON mode would behave differently",
  "document-extractor": "Coze has no document extractor node",
  "list-operator": "Coze has no list operator node",
  assigner: "conversation variables have no Coze equivalent in this exporter",
  loop: "Dify loops (break conditions checked each round, loop-end) are not exported; only iterations are",
  "loop-start": "Dify loops are not exported",
  "loop-end": "Dify loops are not exported",
};

const CONTAINER_PORTS = {
  loop: { inlineOut: "loop-function-inline-output", inlineIn: "loop-function-inline-input" },
  batch: { inlineOut: "batch-function-inline-output", inlineIn: "batch-function-inline-input" },
};

const COZE_NAMES: Record<string, string> = {
  "1": "Start",
  "2": "End",
  "3": "LLM",
  "5": "Code",
  "6": "Knowledge",
  "8": "Condition",
  "13": "Message",
  "15": "Text",
  "21": "Loop",
  "22": "Intent",
  "28": "Batch",
  "32": "Variable merge",
  "45": "HTTP",
};

function positionOf(node: WorkflowNode | undefined, fallback: { x: number; y: number }): { x: number; y: number } {
  const p = node?.canvas?.position as { x?: unknown; y?: unknown } | undefined;
  if (p && typeof p.x === "number" && typeof p.y === "number") return { x: p.x, y: p.y };
  return fallback;
}

function makeNode(
  id: string,
  conv: ConvertedNode,
  title: string,
  description: string,
  position: { x: number; y: number },
): CozeNode {
  const data: CozeNode["data"] = {
    nodeMeta: {
      title: title || COZE_NAMES[conv.type] || conv.type,
      description,
      subTitle: COZE_NAMES[conv.type] ?? "",
    },
  };
  // Coze's own Entry nodes carry no inputs at all.
  if (conv.type !== "1" || Object.keys(conv.inputs).length > 0) data.inputs = conv.inputs;
  if (conv.outputs) data.outputs = conv.outputs;
  if (conv.type === "1") data.trigger_parameters = [];
  if (conv.version) data.version = conv.version;
  return { id, type: conv.type, meta: { position }, data };
}

function edgeKey(e: CozeEdge): string {
  return [e.sourceNodeID, e.targetNodeID, e.sourcePortID ?? "", e.targetPortID ?? ""].join("|");
}

function pushEdge(list: CozeEdge[], e: CozeEdge): void {
  if (!list.some((x) => edgeKey(x) === edgeKey(e))) list.push(e);
}

/**
 * Export a Weft workflow as a Coze Studio canvas, with the id map and the notes a user needs.
 * Throws CozeExportError (`coze.unsupported_node`) naming every node Coze cannot express exactly.
 */
export function exportCozeDetailed(workflow: Workflow, options: ExportCozeOptions = {}): CozeExportResult {
  const ctx = new ExportContext(workflow, options);
  const problems: CozeProblem[] = [];
  const fail = (node: WorkflowNode | undefined, reason: string) => {
    const nodeId = node?.id ?? "";
    if (problems.some((p) => p.nodeId === nodeId && p.reason === reason)) return;
    problems.push({ nodeId, nodeType: node?.type ?? "", title: node?.title ?? "", reason });
  };
  const attempt = <T>(node: WorkflowNode, fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof Unsupported) {
        fail(node, e.reason);
        return undefined;
      }
      throw e;
    }
  };

  const nodes = workflow.nodes;
  const starts = nodes.filter((n) => n.type === "start");
  if (starts.length !== 1) {
    fail(starts[1], `Coze needs exactly one start node; the workflow has ${starts.length}`);
  }
  const ends = nodes.filter((n) => n.type === "end");
  const answers = nodes.filter((n) => n.type === "answer");
  const outgoing = (id: string) => workflow.edges.filter((e) => e.source === id);

  // Which Weft node (if any) becomes the Exit 900001.
  let exitNode: WorkflowNode | undefined;
  let exitKind: "end" | "answer" | "merged" | "synthetic" = "synthetic";
  if (ends.length === 1) {
    exitNode = ends[0];
    exitKind = "end";
  } else if (ends.length > 1) exitKind = "merged";
  else if (
    workflow.mode === "advanced-chat" &&
    answers.length === 1 &&
    outgoing(answers[0]!.id).length === 0 &&
    !answers[0]!.parentId
  ) {
    exitNode = answers[0];
    exitKind = "answer";
  }

  // Ids first: references anywhere need them.
  for (const n of nodes) {
    if (n.type === "start" && n === starts[0]) ctx.assignId(n.id, ENTRY_ID);
    else if (n === exitNode) ctx.assignId(n.id, EXIT_ID);
    else if (n.type !== "end" && n.type !== "iteration-start") ctx.assignId(n.id);
  }

  const containers = new Map<string, { node: CozeNode; kind: "loop" | "batch" }>();
  const converted = new Map<string, ConvertedNode>();
  const cozeNodes = new Map<string, CozeNode>();
  let fallbackX = 0;
  for (const n of nodes) {
    fallbackX += 320;
    if (n.type === "end" || n.type === "iteration-start") {
      if (n.parentId && n.type === "end") fail(n, "an end node inside a container has no Coze equivalent");
      continue;
    }
    if (n.parentId) {
      const parent = ctx.byId.get(n.parentId);
      if (parent?.type !== "iteration") {
        fail(n, `it lives in a ${parent?.type ?? "missing"} container, which is not exported`);
        continue;
      }
      if (parent.parentId) {
        fail(n, "Coze does not allow a loop or batch inside another (validate/workflow_nested_has_loop_or_batch)");
        continue;
      }
    }
    if (n.type === "iteration" && n.parentId) {
      fail(n, "Coze does not allow a loop or batch inside another (validate/workflow_nested_has_loop_or_batch)");
      continue;
    }
    let conv: ConvertedNode | undefined;
    if (n === exitNode && exitKind === "answer") conv = attempt(n, () => exitAnswering(n, ctx));
    else if (n.type === "iteration") conv = attempt(n, () => convertIteration(n, ctx));
    else {
      const fn = CONVERTERS[n.type];
      if (!fn) {
        fail(n, UNSUPPORTED_TYPES[n.type] ?? `node type "${n.type}" has no Coze equivalent`);
        continue;
      }
      conv = attempt(n, () => fn(n, ctx));
    }
    if (!conv) continue;
    converted.set(n.id, conv);
    const cn = makeNode(
      ctx.cozeId(n.id),
      conv,
      n.title,
      String(n.config.desc ?? ""),
      positionOf(n, { x: fallbackX, y: 0 }),
    );
    cozeNodes.set(n.id, cn);
    if (n.type === "iteration") {
      const kind = (conv as ConvertedNode & { kind: "loop" | "batch" }).kind;
      cn.blocks = [];
      cn.edges = [];
      cn.meta.canvasPosition = { x: cn.meta.position.x, y: cn.meta.position.y + 200 };
      containers.set(n.id, { node: cn, kind });
    }
  }

  // The Exit node.
  const topEdges: CozeEdge[] = [];
  let exit: CozeNode | undefined;
  const redirect = new Map<string, string>(); // Weft end id -> Coze id its incoming edges go to
  const lastX = Math.max(0, ...[...cozeNodes.values()].map((c) => c.meta.position.x)) + 320;
  if (exitKind === "end" && exitNode) {
    const params = attempt(exitNode, () => endParams(exitNode!, ctx));
    if (params)
      exit = makeNode(
        EXIT_ID,
        exitReturning(params),
        exitNode.title,
        String(exitNode.config.desc ?? ""),
        positionOf(exitNode, { x: lastX, y: 0 }),
      );
    redirect.set(exitNode.id, EXIT_ID);
  } else if (exitKind === "answer" && exitNode) {
    exit = cozeNodes.get(exitNode.id);
    cozeNodes.delete(exitNode.id);
  } else if (exitKind === "merged") {
    exit = mergeEnds(ends, ctx, cozeNodes, redirect, attempt, topEdges, lastX);
  } else {
    exit = makeNode(EXIT_ID, exitReturning([]), "End", "", { x: lastX, y: 0 });
  }

  // Edges.
  for (const e of workflow.edges) {
    const src = ctx.byId.get(e.source);
    const dst = ctx.byId.get(e.target);
    if (!src || !dst) continue;
    const r = attempt(src, () => mapEdge(e, src, dst, ctx, converted, containers, redirect));
    if (!r) continue;
    const list = r.container ? containers.get(r.container)?.node.edges : topEdges;
    if (!list) continue;
    pushEdge(list, r.edge);
    for (const port of converted.get(src.id)?.alsoPorts?.[e.sourcePort] ?? [])
      pushEdge(list, { ...r.edge, sourcePortID: port });
  }

  // Container bodies: children into blocks, sinks wired back to the container's inline input.
  for (const [id, c] of containers) {
    for (const n of nodes) {
      if (n.parentId !== id) continue;
      const cn = cozeNodes.get(n.id);
      if (!cn) continue;
      c.node.blocks!.push(cn);
      cozeNodes.delete(n.id);
    }
    const inner = new Set(c.node.blocks!.map((b) => b.id));
    for (const b of c.node.blocks!) {
      const hasOut = c.node.edges!.some((e) => e.sourceNodeID === b.id && inner.has(e.targetNodeID));
      if (!hasOut)
        pushEdge(c.node.edges!, {
          sourceNodeID: b.id,
          targetNodeID: c.node.id,
          targetPortID: CONTAINER_PORTS[c.kind].inlineIn,
        });
    }
  }

  // A synthesised Exit collects every dangling top-level path.
  if (exit && exitKind === "synthetic") {
    for (const cn of cozeNodes.values()) {
      if (cn.id === EXIT_ID) continue;
      const weftId = [...ctx.cozeIds].find(([, v]) => v === cn.id)?.[0];
      const conv = weftId ? converted.get(weftId) : undefined;
      const hasOut = topEdges.some((e) => e.sourceNodeID === cn.id);
      if (!hasOut)
        pushEdge(topEdges, {
          sourceNodeID: cn.id,
          targetNodeID: EXIT_ID,
          ...(conv?.ports.source ? { sourcePortID: conv.ports.source } : {}),
        });
    }
  }

  if (problems.length > 0) {
    const list = problems.map(
      (p) => `  - ${p.nodeId ? `${p.nodeType} node "${p.title || p.nodeId}" (${p.nodeId})` : "workflow"}: ${p.reason}`,
    );
    throw new CozeExportError(
      "coze.unsupported_node",
      `the workflow cannot be exported to Coze without changing what it does:\n${list.join("\n")}`,
      problems,
    );
  }

  const canvas: CozeCanvas = {
    nodes: [...cozeNodes.values(), ...(exit ? [exit] : [])],
    edges: topEdges,
    versions: { loop: "v2", batch: "v2" },
  };
  const checked = CanvasSchema.safeParse(canvas);
  if (!checked.success) {
    const first = checked.error.issues[0];
    throw new CozeExportError(
      "coze.invalid_canvas",
      `internal error: the exported canvas breaks the Coze schema at ${first?.path.join(".")}: ${first?.message}`,
      [],
      { issues: checked.error.issues.slice(0, 10) },
    );
  }
  return { canvas, ids: Object.fromEntries(ctx.cozeIds), notes: ctx.notes };
}

/** Export a Weft workflow as a Coze Studio canvas (the object `SaveWorkflowRequest.schema` holds). */
export function exportCoze(workflow: Workflow, options: ExportCozeOptions = {}): CozeCanvas {
  return exportCozeDetailed(workflow, options).canvas;
}

function mapEdge(
  e: WorkflowEdge,
  src: WorkflowNode,
  dst: WorkflowNode,
  ctx: ExportContext,
  converted: Map<string, ConvertedNode>,
  containers: Map<string, { node: CozeNode; kind: "loop" | "batch" }>,
  redirect: Map<string, string>,
): { edge: CozeEdge; container?: string } | undefined {
  // iteration-start -> first body node: the container's inline output.
  if (src.type === "iteration-start") {
    const c = src.parentId ? containers.get(src.parentId) : undefined;
    if (!c) return undefined;
    return {
      edge: {
        sourceNodeID: c.node.id,
        targetNodeID: ctx.cozeId(dst.id),
        sourcePortID: CONTAINER_PORTS[c.kind].inlineOut,
      },
      container: src.parentId,
    };
  }
  const conv = converted.get(src.id);
  if (!conv) return undefined;
  const sourcePort = conv.ports[e.sourcePort] ?? (e.sourcePort === "source" ? "" : undefined);
  if (sourcePort === undefined)
    unsupported(`edge ${e.source} -> ${e.target} leaves from port "${e.sourcePort}", which Coze does not have`);
  const target = dst.type === "end" ? redirect.get(dst.id) : ctx.cozeIds.get(dst.id);
  if (!target) return undefined;
  if ((src.parentId ?? "") !== (dst.parentId ?? ""))
    unsupported(`edge ${e.source} -> ${e.target} crosses a container boundary`);
  const edge: CozeEdge = {
    sourceNodeID: ctx.cozeId(src.id),
    targetNodeID: target,
    ...(sourcePort ? { sourcePortID: sourcePort } : {}),
  };
  return { edge, ...(src.parentId ? { container: src.parentId } : {}) };
}

/**
 * Several Dify end nodes (one per branch) -> one Coze Exit. Outputs bound the same way by every end
 * go straight to the Exit. Otherwise a Variable merge node takes, per output, the first non-null of
 * the ends' values; that equals Dify's answer only if, whichever end is reached, every value listed
 * before that end's own comes from a node that cannot run in the same execution (BranchAnalysis).
 * Values are ordered so that holds (the most widely shared producers last), and the export is
 * refused when it cannot.
 */
function mergeEnds(
  ends: WorkflowNode[],
  ctx: ExportContext,
  cozeNodes: Map<string, CozeNode>,
  redirect: Map<string, string>,
  attempt: <T>(node: WorkflowNode, fn: () => T) => T | undefined,
  topEdges: CozeEdge[],
  x: number,
): CozeNode {
  interface Binding {
    end: WorkflowNode;
    param: CozeParam;
    producer: string;
  }
  const byName = new Map<string, Binding[]>();
  for (const end of ends) {
    const params = attempt(end, () => endParams(end, ctx));
    if (!params) continue;
    const sels = ((end.config.outputs ?? []) as Array<{ value_selector?: string[] }>).map(
      (o) => o.value_selector ?? [],
    );
    params.forEach((param, i) => {
      let producer = sels[i]?.[0] ?? "";
      // A value from inside a container exists once the container has run.
      for (let n = ctx.byId.get(producer); n?.parentId; n = ctx.byId.get(n.parentId)) producer = n.parentId;
      if (producer === "sys") producer = ctx.workflow.nodes.find((n) => n.type === "start")?.id ?? producer;
      byName.set(param.name, [...(byName.get(param.name) ?? []), { end, param, producer }]);
    });
  }
  const same = [...byName.values()].every(
    (bs) =>
      bs.length === ends.length &&
      bs.every((b) => JSON.stringify(b.param.input) === JSON.stringify(bs[0]!.param.input)),
  );
  if (same) {
    for (const end of ends) redirect.set(end.id, EXIT_ID);
    return makeNode(EXIT_ID, exitReturning([...byName.values()].map((bs) => bs[0]!.param)), "End", "", { x, y: 0 });
  }

  const startId = ctx.workflow.nodes.find((n) => n.type === "start")?.id ?? "";
  const branches = new BranchAnalysis(ctx.workflow, startId);
  // May `producer` have run in an execution that reaches `end`?
  const reaches = (producer: string, end: string) => !branches.exclusive(producer, end);
  const mergeGroups: Array<{ name: string; variables: CozeParam["input"][] }> = [];
  for (const [name, bindings] of byName) {
    // One variable per distinct value; ends sharing it are fine together.
    const distinct = new Map<string, { input: CozeParam["input"]; producer: string; ends: WorkflowNode[] }>();
    for (const b of bindings) {
      const key = JSON.stringify(b.param.input);
      const d = distinct.get(key);
      if (d) d.ends.push(b.end);
      else distinct.set(key, { input: b.param.input, producer: b.producer, ends: [b.end] });
    }
    const spread = (p: string) => ends.filter((e) => reaches(p, e.id)).length;
    const ordered = [...distinct.values()].sort((a, b) => spread(a.producer) - spread(b.producer));
    ordered.forEach((v, k) => {
      for (const end of v.ends) {
        const clash = ordered.slice(0, k).find((w) => reaches(w.producer, end.id));
        if (clash) {
          attempt(end, () =>
            unsupported(
              `output "${name}": several end nodes return different values, and the value from node "${clash.producer}" can exist when this end is reached; Coze has a single exit, and merging them would return the wrong one`,
            ),
          );
        }
      }
    });
    mergeGroups.push({ name, variables: ordered.map((v) => v.input) });
  }
  const mergeId = ctx.freshId();
  const outputs = mergeGroups.map((g) => {
    const first = g.variables[0]!;
    return { name: g.name, type: first.type, ...(first.schema ? { schema: first.schema as never } : {}) };
  });
  const merge = makeNode(
    mergeId,
    { type: "32", inputs: { mergeGroups }, outputs, ports: {} },
    "Merge end outputs",
    "One output per Dify end node output: the branch that ran wins.",
    { x, y: 0 },
  );
  cozeNodes.set(`__coze_merge_${mergeId}`, merge);
  for (const end of ends) redirect.set(end.id, mergeId);
  topEdges.push({ sourceNodeID: mergeId, targetNodeID: EXIT_ID });
  const params: CozeParam[] = mergeGroups.map((g) => {
    const first = g.variables[0]!;
    return {
      name: g.name,
      input: {
        type: first.type,
        ...(first.schema ? { schema: first.schema } : {}),
        value: { type: "ref", content: { source: "block-output", blockID: mergeId, name: g.name } },
      },
    };
  });
  return makeNode(EXIT_ID, exitReturning(params), "End", "", { x: x + 320, y: 0 });
}
