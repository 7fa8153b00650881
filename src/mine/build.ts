/**
 * Skeleton → Weft workflow: start (query) → planning LLM → tool-calling positions → synthesis LLM →
 * end. Choices become if-else branches on the plan's text (the branch whose first tool the plan
 * names) joined by a variable-aggregator; parallel parts fan out and join at the next node; retry
 * loops are loop containers that repeat their body until it produced a non-error result.
 */
import type { ToolSpec } from "../ir/services.js";
import { type Workflow, type WorkflowEdge, type WorkflowNode, WorkflowSchema } from "../ir/workflow.js";
import { promptTemplate } from "./prompts.js";
import type { Skeleton } from "./skeleton.js";

export interface BuildOptions {
  /** Model of the workflow's LLM and tool-call nodes. */
  model: { provider: string; name: string; completion_params?: Record<string, unknown> };
  /** Tool catalogue, described to the planning node. */
  tools?: ToolSpec[];
  /** ToolService provider id the tool-call nodes use. */
  providerId?: string;
  name?: string;
  /** Rounds of a retry loop (default 3). */
  retryRounds?: number;
  /** Upstream results shown to each tool-call position besides the task and plan (default 4). */
  contextWindow?: number;
  /**
   * What an optional step (a choice between one branch and a skip) branches on: `plan` — the plan
   * names the branch's first tool (default); `previous` — the previous step gave a result that is not
   * an error, as in procedures that stop early when a check fails. Choices between several branches
   * always follow the plan.
   */
  choiceOn?: "plan" | "previous";
}

interface Binding {
  variable: string;
  value_selector: string[];
}

interface Fragment {
  entries: string[];
  exits: Array<{ id: string; port: string }>;
  outputs: Binding[];
}

export const START_ID = "start";
export const PLAN_ID = "plan";
export const SYNTH_ID = "synth";
export const END_ID = "end";

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 40) || "tool";
}

class Builder {
  nodes: WorkflowNode[] = [];
  edges: WorkflowEdge[] = [];
  private counters = new Map<string, number>();
  constructor(private o: BuildOptions) {}

  id(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}${n}`;
  }
  node(id: string, type: string, title: string, config: Record<string, unknown>, parentId?: string): void {
    this.nodes.push({ id, type, title, config, ...(parentId ? { parentId } : {}) });
  }
  edge(source: string, port: string, target: string): void {
    if (!this.edges.some((e) => e.source === source && e.sourcePort === port && e.target === target))
      this.edges.push({ id: `${source}-${port}-${target}`, source, sourcePort: port, target });
  }
  link(exits: Fragment["exits"], entries: string[]): void {
    for (const x of exits) for (const t of entries) this.edge(x.id, x.port, t);
  }
  model() {
    return {
      provider: this.o.model.provider,
      name: this.o.model.name,
      mode: "chat",
      completion_params: this.o.model.completion_params ?? {},
    };
  }

  fragment(s: Skeleton, ctx: Binding[], parentId?: string): Fragment {
    switch (s.kind) {
      case "call": {
        const id = this.id("call");
        const window = this.o.contextWindow ?? 4;
        const base = ctx.slice(0, 2);
        const recent = ctx.slice(2).slice(-window);
        this.node(
          id,
          "tool-call",
          s.tools.length === 1 ? `Call ${s.tools[0]}` : `Call one of ${s.tools.length} tools`,
          {
            model: this.model(),
            provider_id: this.o.providerId ?? "",
            candidates: s.tools,
            context: [...base, ...recent],
            instruction:
              s.tools.length === 1
                ? `This step of the plan uses ${s.tools[0]}.`
                : `This step of the plan uses one of: ${s.tools.join(", ")}. Pick the one the plan and context call for.`,
          },
          parentId,
        );
        return {
          entries: [id],
          exits: [{ id, port: "source" }],
          outputs: [{ variable: `${safeName(s.tools[0]!)}_result`, value_selector: [id, "result"] }],
        };
      }
      case "seq": {
        let cur = ctx;
        let first: Fragment | undefined;
        let prev: Fragment | undefined;
        const outputs: Binding[] = [];
        for (const item of s.items) {
          const f = this.fragment(item, cur, parentId);
          if (prev) this.link(prev.exits, f.entries);
          first ??= f;
          prev = f;
          outputs.push(...f.outputs);
          cur = [...cur, ...f.outputs];
        }
        return { entries: first!.entries, exits: prev!.exits, outputs };
      }
      case "parallel": {
        const parts = s.branches.map((b) => this.fragment(b, ctx, parentId));
        return {
          entries: parts.flatMap((p) => p.entries),
          exits: parts.flatMap((p) => p.exits),
          outputs: parts.flatMap((p) => p.outputs),
        };
      }
      case "choice": {
        const ifId = this.id("choice");
        const mergeId = this.id("merge");
        const real = s.branches.map((b, i) => ({ b, i })).filter((x) => x.b !== null) as Array<{
          b: Skeleton;
          i: number;
        }>;
        const hasSkip = real.length < s.branches.length;
        // Without a skip branch, the last real branch is the else case.
        const cased = hasSkip ? real : real.slice(0, -1);
        const elseBranch = hasSkip ? null : real[real.length - 1]!;
        const previous = ctx.length > 2 ? ctx[ctx.length - 1]!.value_selector : undefined;
        const onPrevious = this.o.choiceOn === "previous" && hasSkip && cased.length === 1 && previous !== undefined;
        const cases = cased.map((x, k) => ({
          case_id: `c${k + 1}`,
          logical_operator: "and",
          conditions: onPrevious
            ? [
                { variable_selector: previous, comparison_operator: "not empty" },
                { variable_selector: previous, comparison_operator: "not contains", value: "ERROR:" },
              ]
            : [{ variable_selector: [PLAN_ID, "text"], comparison_operator: "contains", value: firstTool(x.b) }],
        }));
        const title = onPrevious ? "Did the previous step succeed?" : "Which branch does the plan take?";
        this.node(ifId, "if-else", title, { cases }, parentId);
        const mergeVars: string[][] = [];
        const attach = (b: Skeleton | null, port: string) => {
          if (!b) {
            this.edge(ifId, port, mergeId);
            return;
          }
          const f = this.fragment(b, ctx, parentId);
          for (const e of f.entries) this.edge(ifId, port, e);
          this.link(f.exits, [mergeId]);
          mergeVars.push(...f.outputs.map((o) => o.value_selector));
        };
        for (const [k, x] of cased.entries()) attach(x.b, `c${k + 1}`);
        attach(elseBranch?.b ?? null, "false");
        this.node(
          mergeId,
          "variable-aggregator",
          "Merge the branches",
          { output_type: "string", variables: mergeVars },
          parentId,
        );
        return {
          entries: [ifId],
          exits: [{ id: mergeId, port: "source" }],
          outputs: [{ variable: "branch_result", value_selector: [mergeId, "output"] }],
        };
      }
      case "retry": {
        const loopId = this.id("loop");
        const startId = `${loopId}start`;
        const saveId = `${loopId}save`;
        this.node(startId, "loop-start", "Loop start", {}, loopId);
        const body = this.fragment(s.body, ctx, loopId);
        for (const e of body.entries) this.edge(startId, "source", e);
        const last = body.outputs[body.outputs.length - 1];
        this.node(
          saveId,
          "assigner",
          "Keep the result",
          {
            version: "2",
            items: last
              ? [
                  {
                    variable_selector: [loopId, "last"],
                    input_type: "variable",
                    operation: "over-write",
                    value: last.value_selector,
                  },
                ]
              : [],
          },
          loopId,
        );
        this.link(body.exits, [saveId]);
        // Pushed after its children were built; node order does not matter to the analyser.
        this.node(loopId, "loop", "Retry until a result", {
          start_node_id: startId,
          loop_count: this.o.retryRounds ?? 3,
          logical_operator: "and",
          break_conditions: [
            { variable_selector: [loopId, "last"], comparison_operator: "not empty" },
            { variable_selector: [loopId, "last"], comparison_operator: "not contains", value: "ERROR:" },
          ],
          loop_variables: [{ label: "last", var_type: "string", value_type: "constant", value: "" }],
        });
        return {
          entries: [loopId],
          exits: [{ id: loopId, port: "source" }],
          outputs: [{ variable: "retry_result", value_selector: [loopId, "last"] }],
        };
      }
    }
  }
}

function firstTool(s: Skeleton): string {
  switch (s.kind) {
    case "call":
      return s.tools[0]!;
    case "seq":
      return firstTool(s.items[0]!);
    case "choice":
      return firstTool(s.branches.find((b) => b !== null)!);
    case "parallel":
      return firstTool(s.branches[0]!);
    case "retry":
      return firstTool(s.body);
  }
}

function toolList(tools: ToolSpec[] | undefined): string {
  if (!tools || tools.length === 0) return "";
  return `\n\nTools:\n${tools.map((t) => `- ${t.name}: ${(t.description || "").replace(/\s+/g, " ").slice(0, 200)}`).join("\n")}`;
}

export function buildWorkflow(skeleton: Skeleton | null, o: BuildOptions): Workflow {
  const b = new Builder(o);
  const model = b.model();
  b.node(START_ID, "start", "Start", {
    variables: [{ variable: "query", label: "Query", type: "paragraph", required: true }],
  });
  b.node(PLAN_ID, "llm", "Plan the tool calls", {
    model,
    prompt_template: [
      { role: "system", text: `${promptTemplate("planning")!.system}${toolList(o.tools)}` },
      { role: "user", text: `{{#${START_ID}.query#}}` },
    ],
    context: { enabled: false },
  });
  b.edge(START_ID, "source", PLAN_ID);
  const ctx: Binding[] = [
    { variable: "task", value_selector: [START_ID, "query"] },
    { variable: "plan", value_selector: [PLAN_ID, "text"] },
  ];
  let exits: Fragment["exits"] = [{ id: PLAN_ID, port: "source" }];
  let outputs: Binding[] = [];
  if (skeleton) {
    const f = b.fragment(skeleton, ctx);
    b.link(exits, f.entries);
    exits = f.exits;
    outputs = f.outputs;
  }
  const results = outputs.map((x) => `### ${x.variable}\n{{#${x.value_selector.join(".")}#}}`).join("\n\n");
  b.node(SYNTH_ID, "llm", "Write the answer", {
    model,
    prompt_template: [
      { role: "system", text: promptTemplate("synthesising")!.system },
      {
        role: "user",
        text: `Task: {{#${START_ID}.query#}}\n\nPlan:\n{{#${PLAN_ID}.text#}}\n\nTool results:\n${results || "(none)"}`,
      },
    ],
    context: { enabled: false },
  });
  b.link(exits, [SYNTH_ID]);
  b.node(END_ID, "end", "End", {
    outputs: [{ variable: "answer", value_selector: [SYNTH_ID, "text"], value_type: "string" }],
  });
  b.edge(SYNTH_ID, "source", END_ID);
  return WorkflowSchema.parse({
    name: o.name ?? "mined-workflow",
    description: "Mined from tool-invocation logs",
    mode: "workflow",
    nodes: b.nodes,
    edges: b.edges,
  });
}
