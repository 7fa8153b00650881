import type { z } from "zod";
import type { Diagnostic } from "./diagnostics.js";
import type { ExecServices, Usage } from "./services.js";
import type { ValueType } from "./types.js";
import type { AppMode, OutputDecl, Workflow, WorkflowNode } from "./workflow.js";

/** A value a node reads, found in its config. `field` is the config path, for diagnostics. */
export interface InputRef {
  selector: string[];
  field: string;
  /** The type the node needs there; omitted when anything goes. */
  expects?: ValueType;
  /** Missing at run time is tolerated (variable-aggregator alternatives, optional tool params). */
  optional?: boolean;
  /** Came from a `{{#…#}}` template reference rather than a selector field. */
  fromTemplate?: boolean;
}

/** Template text the analyser lexes: Dify references (`dify`) or a Jinja2 source (`jinja2`). */
export interface TextField {
  field: string;
  text: string;
  kind: "dify" | "jinja2";
}

/** What static rules may ask about the rest of the workflow. */
export interface StaticContext {
  workflow: Workflow;
  node: WorkflowNode;
  nodeById(id: string): WorkflowNode | undefined;
  childrenOf(containerId: string): WorkflowNode[];
  /** Declared type of the value a selector names, if the analyser knows it. */
  typeOf(selector: readonly string[]): ValueType | undefined;
}

export interface ReadResult {
  found: boolean;
  value?: unknown;
}

export interface NodeEvent {
  type: "chunk" | "log";
  text: string;
  /** For chunks: the selector whose text is streaming (answer nodes, LLM text). */
  selector?: string[];
}

export interface BodyRunResult {
  /** Read a value from the finished body's pool (inner node outputs, loop variables). */
  read(selector: readonly string[]): ReadResult;
  /** Did a node of this type run in the body (loop-end)? */
  ran(type: string): boolean;
  error?: Error;
}

export interface BodyRunOptions {
  /** Values published under the container's own id for this run (item/index, loop variables). */
  scope: Record<string, unknown>;
  /** Loop rounds share the parent pool; iteration items each get a copy. */
  sharedPool: boolean;
  index: number;
}

/** The engine's side of a node execution. */
export interface ExecContext<C = Record<string, unknown>> {
  workflow: Workflow;
  node: WorkflowNode;
  config: C;
  runId: string;
  /** The node's frame key in the run (`node`, `iter[2]/node`): what durable per-execution state is keyed by. */
  key: string;
  /** The run's inputs (the start node publishes them). */
  runInputs: Record<string, unknown>;
  attempt: number;
  /** Feedback from gates that rejected the previous attempt's outputs. */
  feedback: string[];
  read(selector: readonly string[]): ReadResult;
  /** Render Dify `{{#id.var#}}` text; `markdown` is the answer-node style of rendering values. */
  render(text: string, style?: "text" | "markdown"): string;
  emit(event: NodeEvent): void;
  /** Write a conversation or loop variable (assigner). */
  writeVariable(selector: readonly string[], value: unknown): void;
  /** Containers only: run the body once. */
  runBody(opts: BodyRunOptions): Promise<BodyRunResult>;
  services: ExecServices;
  signal: AbortSignal;
}

export interface NodeResult {
  outputs: Record<string, unknown>;
  /** The port taken; defaults to `source`. */
  port?: string;
  usage?: Usage;
  /** Extra trace data (tool invocations, prompts sent ...). */
  meta?: Record<string, unknown>;
}

export type NodeCategory = "io" | "llm" | "logic" | "transform" | "tool" | "container" | "knowledge";

export interface NodeTypeDef<C = Record<string, unknown>> {
  type: string;
  /** Legacy type strings read as this type (variable-assigner → variable-aggregator). */
  aliases?: string[];
  label: string;
  category: NodeCategory;
  /** One or two sentences for the node knowledge base. */
  purpose: string;
  /** Data fields as Dify writes them; `.loose()` so unknown fields are kept. */
  configSchema: z.ZodType<C>;
  /** Minimal valid config, for generation defaults and docs. */
  example?: Record<string, unknown>;
  /** Rules the knowledge base states in words. */
  notes?: string[];
  entry?: boolean;
  exit?: boolean;
  modes?: AppMode[];
  /** Containers name the start-node type of their body. */
  container?: { startType: string };
  /** Start node of a container body (iteration-start, loop-start). */
  containerStart?: { containerType: string };
  /**
   * Time the executor may spend before the user's work starts (a sandbox booting), added to the
   * node's `timeout_seconds` timer. The executor itself then holds the user's work to the timeout.
   */
  timeoutAllowanceMs?: number;
  outputs(config: C, node: WorkflowNode): OutputDecl[];
  inputs(config: C, node: WorkflowNode): InputRef[];
  /** Branch handles the node can take, besides the common `fail-branch`. */
  ports(config: C, node: WorkflowNode): string[];
  /** Values a container publishes to its body under its own id (item, index, loop variables). */
  scopeOutputs?(config: C, node: WorkflowNode): OutputDecl[];
  texts?(config: C, node: WorkflowNode): TextField[];
  rules?(config: C, ctx: StaticContext): Diagnostic[];
  execute?(ctx: ExecContext<C>): Promise<NodeResult>;
}

/**
 * The node types a workflow is read against. An explicit value passed down, never a module-level table
 * filled by imports: src/nodes/catalogue.ts builds the real one, tests build their own.
 */
export interface NodeTypes {
  /** The definition of a type or of one of its aliases. */
  get(type: string): NodeTypeDef<any> | undefined;
  all(): readonly NodeTypeDef<any>[];
}
