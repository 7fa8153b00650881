import type { WorkflowNode } from "../../ir/workflow.js";
import { makeNode, positionOf } from "./canvas.js";
import type { ExportContext } from "./context.js";
import type { ExitPlan } from "./exit.js";
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
  exitAnswering,
} from "./nodes.js";
import type { ExportProblems } from "./problems.js";
import { type CozeNode, ENTRY_ID, EXIT_ID } from "./schema.js";

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

const NESTED = "Coze does not allow a loop or batch inside another (validate/workflow_nested_has_loop_or_batch)";

export type Containers = Map<string, { node: CozeNode; kind: "loop" | "batch" }>;

/** The nodes Coze has a counterpart for, each keyed by its Weft id. */
export interface ConvertedNodes {
  converted: Map<string, ConvertedNode>;
  /** Every Coze node at the top level, until container bodies are moved into their containers' blocks. */
  cozeNodes: Map<string, CozeNode>;
  /** The iterations, as Coze loop or batch nodes. */
  containers: Containers;
}

/**
 * A Coze id for every node that becomes a Coze node: the first start is the Entry, the chosen exit the Exit.
 * Assigned before any node is converted, because references anywhere need them.
 */
export function assignIds(nodes: WorkflowNode[], entry: WorkflowNode | undefined, exit: ExitPlan, ctx: ExportContext) {
  for (const n of nodes) {
    if (n.type === "start" && n === entry) ctx.assignId(n.id, ENTRY_ID);
    else if (n === exit.node) ctx.assignId(n.id, EXIT_ID);
    else if (n.type !== "end" && n.type !== "iteration-start") ctx.assignId(n.id);
  }
}

/** Why the node cannot sit where it does on a Coze canvas, if it cannot. */
function misplaced(n: WorkflowNode, ctx: ExportContext): string | undefined {
  if (n.parentId) {
    const parent = ctx.byId.get(n.parentId);
    if (parent?.type !== "iteration")
      return `it lives in a ${parent?.type ?? "missing"} container, which is not exported`;
    if (parent.parentId) return NESTED;
  }
  if (n.type === "iteration" && n.parentId) return NESTED;
  return undefined;
}

function convertOne(
  n: WorkflowNode,
  exit: ExitPlan,
  ctx: ExportContext,
  problems: ExportProblems,
): ConvertedNode | undefined {
  if (n === exit.node && exit.kind === "answer") return problems.attempt(n, () => exitAnswering(n, ctx));
  if (n.type === "iteration") return problems.attempt(n, () => convertIteration(n, ctx));
  const fn = CONVERTERS[n.type];
  if (!fn) {
    problems.fail(n, UNSUPPORTED_TYPES[n.type] ?? `node type "${n.type}" has no Coze equivalent`);
    return undefined;
  }
  return problems.attempt(n, () => fn(n, ctx));
}

/** Every node but the ends (which become the Exit) as a Coze node; a node without one is a problem. */
export function convertNodes(
  nodes: WorkflowNode[],
  exit: ExitPlan,
  ctx: ExportContext,
  problems: ExportProblems,
): ConvertedNodes {
  const out: ConvertedNodes = { converted: new Map(), cozeNodes: new Map(), containers: new Map() };
  let fallbackX = 0;
  for (const n of nodes) {
    fallbackX += 320;
    if (n.type === "end" || n.type === "iteration-start") {
      if (n.parentId && n.type === "end") problems.fail(n, "an end node inside a container has no Coze equivalent");
      continue;
    }
    const where = misplaced(n, ctx);
    if (where) {
      problems.fail(n, where);
      continue;
    }
    const conv = convertOne(n, exit, ctx, problems);
    if (!conv) continue;
    out.converted.set(n.id, conv);
    const position = positionOf(n, { x: fallbackX, y: 0 });
    const cn = makeNode(ctx.cozeId(n.id), conv, n.title, String(n.config.desc ?? ""), position);
    out.cozeNodes.set(n.id, cn);
    if (n.type === "iteration") {
      const kind = (conv as ConvertedNode & { kind: "loop" | "batch" }).kind;
      cn.blocks = [];
      cn.edges = [];
      cn.meta.canvasPosition = { x: cn.meta.position.x, y: cn.meta.position.y + 200 };
      out.containers.set(n.id, { node: cn, kind });
    }
  }
  return out;
}
