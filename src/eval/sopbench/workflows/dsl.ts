import { type Workflow, WorkflowSchema } from "../../../ir/workflow.js";
import { providerIdOf } from "../service.js";

/**
 * A small builder for the hand-written SOP-Bench reference workflows. The workflows ship as Weft JSON
 * (`<domain>.json`, so `weft validate` / `weft run` read them); this builder exists only so the JavaScript
 * of their code nodes can be written as readable source instead of JSON-escaped strings. `generate.ts`
 * writes the JSON; a test checks the two agree.
 */

export type Selector = [string, ...string[]];
/**
 * A tool parameter: a selector reads a variable (keeping its type); `{ const }` is a literal string. Dify
 * renders constant parameters as text, so typed literals (booleans, numbers, lists) come from a
 * `constants` code node instead.
 */
export type Param = Selector | { const: string };

export type CodeOutputType = "string" | "number" | "boolean" | "object" | "array[string]" | "array[object]";

export interface StartInput {
  name: string;
  /** Start variable type: text-input, paragraph, number. */
  type: "text-input" | "paragraph" | "number";
}

export interface Condition {
  selector: Selector;
  op: string;
  value?: unknown;
}

interface BuiltNode {
  id: string;
  type: string;
  title: string;
  config: Record<string, unknown>;
}

export class WorkflowBuilder {
  private readonly nodes: BuiltNode[] = [];
  private readonly edges: Array<{ source: string; sourcePort: string; target: string }> = [];

  constructor(
    private readonly domain: string,
    private readonly description: string,
  ) {}

  private add(id: string, type: string, title: string, config: Record<string, unknown>): string {
    if (this.nodes.some((n) => n.id === id)) throw new Error(`duplicate node id ${id}`);
    this.nodes.push({ id, type, title, config });
    return id;
  }

  start(inputs: StartInput[]): string {
    return this.add("start", "start", "Task inputs", {
      variables: inputs.map((i) => ({ variable: i.name, label: i.name, type: i.type, required: false })),
    });
  }

  /**
   * A SOP-Bench tool call. `onError: "continue"` (Dify's default-value strategy) lets a refused call through
   * with `error_message` set and no `json`, for steps whose refusal the SOP itself handles.
   */
  tool(
    id: string,
    toolName: string,
    params: Record<string, Param>,
    opts: { title?: string; onError?: "continue" | "branch" } = {},
  ): string {
    const tool_parameters = Object.fromEntries(
      Object.entries(params).map(([k, p]) => [
        k,
        Array.isArray(p) ? { type: "variable", value: p } : { type: "constant", value: p.const },
      ]),
    );
    return this.add(id, "tool", opts.title ?? toolName, {
      provider_id: providerIdOf(this.domain),
      provider_type: "builtin",
      provider_name: providerIdOf(this.domain),
      tool_name: toolName,
      tool_label: toolName,
      tool_configurations: {},
      tool_parameters,
      ...(opts.onError === "continue" ? { error_strategy: "default-value", default_value: [] } : {}),
      ...(opts.onError === "branch" ? { error_strategy: "fail-branch" } : {}),
    });
  }

  /** A code node that returns typed literals, for tool parameters that must not arrive as text. */
  constants(id: string, values: Record<string, boolean | number | string | string[]>): (key: string) => Selector {
    const type = (v: unknown): CodeOutputType =>
      Array.isArray(v)
        ? "array[string]"
        : typeof v === "boolean"
          ? "boolean"
          : typeof v === "number"
            ? "number"
            : "string";
    this.code(
      id,
      "Constants",
      {},
      `function main() {\n  return ${JSON.stringify(values)};\n}`,
      Object.fromEntries(Object.entries(values).map(([k, v]) => [k, type(v)])),
    );
    return (key) => {
      if (!(key in values)) throw new Error(`constants node ${id} has no ${key}`);
      return [id, key];
    };
  }

  /** A JavaScript code node: `code` must define `function main({...})` returning exactly `outputs`. */
  code(
    id: string,
    title: string,
    variables: Record<string, Selector>,
    code: string,
    outputs: Record<string, CodeOutputType>,
  ): string {
    return this.add(id, "code", title, {
      code_language: "javascript",
      variables: Object.entries(variables).map(([variable, value_selector]) => ({ variable, value_selector })),
      code: `${code.trim()}\n`,
      outputs: Object.fromEntries(Object.entries(outputs).map(([k, type]) => [k, { type, children: null }])),
    });
  }

  /** If-else with one case per entry (port = case id, conditions and-ed); the else port is `false`. */
  ifElse(id: string, title: string, cases: Array<{ id: string; when: Condition[]; or?: boolean }>): string {
    return this.add(id, "if-else", title, {
      cases: cases.map((c) => ({
        case_id: c.id,
        logical_operator: c.or ? "or" : "and",
        conditions: c.when.map((w, i) => ({
          id: `${c.id}-${i}`,
          variable_selector: w.selector,
          comparison_operator: w.op,
          value: w.value,
        })),
      })),
    });
  }

  template(id: string, title: string, template: string, variables: Record<string, Selector> = {}): string {
    return this.add(id, "template-transform", title, {
      template,
      variables: Object.entries(variables).map(([variable, value_selector]) => ({ variable, value_selector })),
    });
  }

  aggregate(id: string, title: string, outputType: string, variables: Selector[]): string {
    return this.add(id, "variable-aggregator", title, { output_type: outputType, variables });
  }

  end(id: string, outputs: Record<string, Selector>, title = "Outputs"): string {
    return this.add(id, "end", title, {
      outputs: Object.entries(outputs).map(([variable, value_selector]) => ({ variable, value_selector })),
    });
  }

  /** Chains nodes with default-port edges: edge(a, b, c) is a→b→c. */
  chain(...ids: string[]): this {
    for (let i = 1; i < ids.length; i++) this.edge(ids[i - 1] as string, ids[i] as string);
    return this;
  }

  edge(source: string, target: string, port = "source"): this {
    this.edges.push({ source, sourcePort: port, target });
    return this;
  }

  build(): Workflow {
    return WorkflowSchema.parse({
      weft: 1,
      name: `sopbench-${this.domain}`,
      description: this.description,
      mode: "workflow",
      nodes: this.nodes,
      edges: this.edges.map((e) => ({ id: `${e.source}-${e.sourcePort}-${e.target}`, ...e })),
      meta: { sopbench: { domain: this.domain, provider_id: providerIdOf(this.domain) } },
    });
  }
}

/** Start inputs from the domain's column names: numeric columns as number, long free text as paragraph. */
export function inputs(text: string[], numbers: string[] = [], paragraphs: string[] = []): StartInput[] {
  return [
    ...text.map((name) => ({ name, type: "text-input" as const })),
    ...paragraphs.map((name) => ({ name, type: "paragraph" as const })),
    ...numbers.map((name) => ({ name, type: "number" as const })),
  ];
}

/** The object a tool returned (the tool node's json[0]). */
export const result = (toolNode: string): Selector => [toolNode, "json", "0"];
/** The tool's text (its return value when that is a plain string). */
export const text = (toolNode: string): Selector => [toolNode, "text"];
export const input = (name: string): Selector => ["start", name];
