/**
 * Minimal ExecContext and scripted LlmService for unit tests of the model-calling nodes. The pool is a
 * plain `{nodeId: {var: value}}` map; rendering follows Dify (missing refs render as bare `id.var`).
 */

import { describeNode } from "../../src/ir/describe.js";
import type { ExecContext, NodeEvent, NodeResult } from "../../src/ir/registry.js";
import { replaceTemplateRefs } from "../../src/ir/selector.js";
import type { ExecServices, LlmRequest, LlmResponse, LlmService } from "../../src/ir/services.js";
import type { WorkflowNode } from "../../src/ir/workflow.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";

export type Pool = Record<string, Record<string, unknown>>;

function readPool(pool: Pool, sel: readonly string[]) {
  const [head, name, ...path] = sel;
  const scope = head !== undefined ? pool[head] : undefined;
  if (!scope || name === undefined || !(name in scope)) return { found: false };
  let v: unknown = scope[name];
  for (const p of path) {
    if (v && typeof v === "object" && p in (v as object)) v = (v as Record<string, unknown>)[p];
    else return { found: true, value: null };
  }
  return { found: true, value: v };
}

function text(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export interface FakeRun {
  ctx: ExecContext<any>;
  events: NodeEvent[];
}

export function makeNode(id: string, type: string, config: Record<string, unknown>, title = id): WorkflowNode {
  return { id, type, title, config };
}

export function fakeContext(node: WorkflowNode, pool: Pool, services: Partial<ExecServices> = {}): FakeRun {
  const def = nodeCatalogue.get(node.type);
  if (!def) throw new Error(`unknown node type ${node.type}`);
  const parsed = def.configSchema.parse(node.config);
  const events: NodeEvent[] = [];
  const workflow = WorkflowSchema.parse({ mode: "advanced-chat", nodes: [node], edges: [] });
  const ctx: ExecContext<any> = {
    workflow,
    node,
    config: parsed,
    runId: "run-1",
    key: node.id,
    runInputs: {},
    attempt: 1,
    feedback: [],
    read: (sel) => readPool(pool, sel),
    render: (t) =>
      replaceTemplateRefs(t, (sel) => {
        const r = readPool(pool, sel);
        return r.found ? text(r.value) : sel.join(".");
      }),
    emit: (e) => events.push(e),
    writeVariable: () => {
      throw new Error("not in these tests");
    },
    runBody: () => {
      throw new Error("not in these tests");
    },
    services: { now: () => new Date(0), random: () => 0.5, ...services },
    signal: new AbortController().signal,
  };
  return { ctx, events };
}

export async function run(
  node: WorkflowNode,
  pool: Pool,
  services: Partial<ExecServices> = {},
): Promise<NodeResult & { events: NodeEvent[] }> {
  const { ctx, events } = fakeContext(node, pool, services);
  const def = nodeCatalogue.get(node.type);
  const res = await def!.execute!(ctx);
  return { ...res, events };
}

export function describe_(node: WorkflowNode) {
  return describeNode(node, nodeCatalogue);
}

type Script = Partial<LlmResponse> | ((req: LlmRequest) => Partial<LlmResponse>);

/** An LlmService that answers from a script and records each request. */
export class ScriptedLlm implements LlmService {
  readonly requests: LlmRequest[] = [];
  constructor(private readonly script: Script[]) {}
  async chat(req: LlmRequest): Promise<LlmResponse> {
    this.requests.push(req);
    const next = this.script.shift();
    if (!next) throw new Error("scripted LLM has no more replies");
    const r = typeof next === "function" ? next(req) : next;
    const out: LlmResponse = {
      text: r.text ?? "",
      reasoning: r.reasoning,
      toolCalls: r.toolCalls ?? [],
      usage: r.usage ?? { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      finishReason: r.finishReason ?? (r.toolCalls?.length ? "tool-calls" : "stop"),
    };
    // Stream the text in small pieces, as a provider would.
    if (req.onText) for (const piece of out.text.match(/[\s\S]{1,3}/g) ?? []) req.onText(piece);
    return out;
  }
}

/** Static diagnostics of one node, without a whole workflow analysis. */
export function rulesOf(node: WorkflowNode) {
  const d = describeNode(node, nodeCatalogue);
  const def = d.def!;
  const workflow = WorkflowSchema.parse({ mode: "workflow", nodes: [node], edges: [] });
  return [
    ...d.configDiagnostics,
    ...(d.config
      ? (def.rules?.(d.config, {
          workflow,
          node,
          nodeById: () => undefined,
          childrenOf: () => [],
          typeOf: () => undefined,
        }) ?? [])
      : []),
  ];
}
