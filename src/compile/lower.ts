import type { Diagnostic } from "../ir/diagnostics.js";
import { templateRefs } from "../ir/selector.js";
import type { ModelRef, ToolSpec } from "../ir/services.js";
import { type Workflow, WorkflowSchema } from "../ir/workflow.js";
import {
  type ArtifactType,
  type Branch,
  controlTree,
  type Item,
  type Loop,
  type ModelCondition,
  type ModelGate,
  type SopModel,
  type Step,
} from "./model.js";

/** Tools a compiled workflow may call: their specs and the provider that serves them. */
export interface ToolCatalog {
  providerId: string;
  specs: ToolSpec[];
}

export interface LowerOptions {
  tools?: ToolCatalog;
  /** Model the llm/agent nodes name (routed by the LLM config at run time). */
  llmModel?: ModelRef;
  /** Agent nodes: maximum tool-calling rounds. */
  agentMaxIterations?: number;
}

export interface Lowered {
  workflow: Workflow;
  /** Problems the lowering itself found (unknown tools, type disagreement at joins...), codes `compile.*`. */
  diagnostics: Diagnostic[];
  /** IR node id → the model construct (step, branch or loop id) it came from. */
  origins: Record<string, string>;
  /** Where each artifact can be read at the end of the workflow. */
  selectors: Record<string, string[]>;
}

interface Binding {
  selector: string[];
  type: ArtifactType;
}
type Env = Map<string, Binding>;
interface Tail {
  node: string;
  port: string;
}
interface RawNode {
  id: string;
  type: string;
  title: string;
  parentId?: string;
  config: Record<string, unknown>;
}

export const DEFAULT_LLM_MODEL: ModelRef = {
  provider: "weft-compile",
  name: "",
  mode: "chat",
  completion_params: { temperature: 0 },
};

function jsonSchemaOf(t: ArtifactType): Record<string, unknown> {
  if (t.startsWith("array[")) return { type: "array", items: { type: t.slice(6, -1) } };
  return { type: t };
}

function startType(t: ArtifactType): string {
  return t === "string" ? "paragraph" : t;
}

const ref = (sel: readonly string[]) => `{{#${sel.join(".")}#}}`;
const lexes = (sel: readonly string[]) => templateRefs(ref(sel)).length === 1;

/** Translate the SOP model into Weft IR. Never throws on a model that parseModel accepted; problems are diagnostics. */
export function lowerModel(model: SopModel, opts: LowerOptions = {}): Lowered {
  return new Lowerer(model, opts).run();
}

class Lowerer {
  private readonly nodes: RawNode[] = [];
  private readonly edges: Array<{ source: string; sourcePort: string; target: string }> = [];
  private readonly diags: Diagnostic[] = [];
  private readonly origins: Record<string, string> = {};
  private readonly ids = new Set<string>();
  private readonly llmModel: ModelRef;
  private readonly specs: Map<string, ToolSpec>;
  /** Every artifact's writer, so a read before the write can be named as such. */
  private readonly writers = new Map<string, string>();

  constructor(
    private readonly model: SopModel,
    private readonly opts: LowerOptions,
  ) {
    this.llmModel = opts.llmModel ?? DEFAULT_LLM_MODEL;
    this.specs = new Map((opts.tools?.specs ?? []).map((s) => [s.name, s]));
    for (const s of model.steps)
      for (const w of s.writes) if (!this.writers.has(w.name)) this.writers.set(w.name, s.id);
    for (const s of model.steps) this.ids.add(s.id);
    for (const b of model.branches) this.ids.add(b.id);
    for (const l of model.loops) this.ids.add(l.id);
  }

  private freshId(base: string): string {
    let id = base;
    let n = 2;
    while (this.ids.has(id)) id = `${base}_${n++}`;
    this.ids.add(id);
    return id;
  }

  private add(n: RawNode, origin: string): string {
    this.nodes.push(n);
    this.origins[n.id] = origin;
    return n.id;
  }

  private connect(tails: readonly Tail[], target: string): void {
    for (const t of tails) this.edges.push({ source: t.node, sourcePort: t.port, target });
  }

  private diag(code: string, message: string, nodeId?: string, severity: Diagnostic["severity"] = "error"): void {
    this.diags.push({ code, severity, message, ...(nodeId ? { nodeId } : {}) });
  }

  run(): Lowered {
    const env: Env = new Map();
    const startId = this.freshId("start");
    this.add(
      {
        id: startId,
        type: "start",
        title: "Inputs",
        config: {
          variables: this.model.inputs.map((i) => ({
            variable: i.name,
            label: i.name,
            type: startType(i.type),
            required: false,
            ...(i.description ? { description: i.description } : {}),
          })),
        },
      },
      "inputs",
    );
    for (const i of this.model.inputs) env.set(i.name, { selector: [startId, i.name], type: i.type });
    const tails = this.block(controlTree(this.model), [{ node: startId, port: "source" }], env, undefined);
    const endId = this.freshId("end");
    const outputs = this.model.outputs.map((o) => ({
      variable: o.name,
      value_selector: this.read(env, o.artifact, endId),
    }));
    this.add({ id: endId, type: "end", title: "Outputs", config: { outputs } }, "outputs");
    this.connect(tails, endId);
    const workflow = WorkflowSchema.parse({
      weft: 1,
      name: this.model.name,
      description: this.model.description,
      mode: "workflow",
      nodes: this.nodes,
      edges: this.edges.map((e, i) => ({ id: `e${i}-${e.source}-${e.sourcePort}-${e.target}`, ...e })),
      meta: { compiled: { from: "sop", tools: this.opts.tools?.providerId } },
    });
    const selectors = Object.fromEntries([...env].map(([k, v]) => [k, v.selector]));
    return { workflow, diagnostics: this.diags, origins: this.origins, selectors };
  }

  /** Selector of an artifact at this point; unknown artifacts are reported and read as a dangling selector. */
  private read(env: Env, name: string, nodeId: string): string[] {
    const b = env.get(name);
    if (b) return b.selector;
    const writer = this.writers.get(name);
    this.diag(
      "compile.unknown_artifact",
      writer
        ? `"${nodeId}" reads artifact "${name}" before step "${writer}" writes it`
        : `"${nodeId}" reads artifact "${name}", which no input or step provides`,
      nodeId,
    );
    return [writer ?? `missing_${name}`, name];
  }

  private block(items: readonly Item[], tails: Tail[], env: Env, parentId: string | undefined): Tail[] {
    let t = tails;
    for (const it of items) {
      if (it.kind === "step") t = this.step(it.step, t, env, parentId);
      else if (it.kind === "branch") t = this.branch(it.branch, it.then, it.else, t, env, parentId);
      else t = this.loop(it.loop, it.body, t, env, parentId);
    }
    return t;
  }

  private inParent(parentId: string | undefined): { parentId?: string } {
    return parentId ? { parentId } : {};
  }

  private step(s: Step, tails: Tail[], env: Env, parentId: string | undefined): Tail[] {
    const reads = s.reads.map((r) => ({ name: r, selector: this.read(env, r, s.id) }));
    const title = s.title ?? s.id;
    let last: string;
    const writeSel: Record<string, string[]> = {};
    if (s.kind === "code") {
      last = this.add(
        {
          id: s.id,
          type: "code",
          title,
          ...this.inParent(parentId),
          config: {
            desc: s.instruction,
            code_language: "javascript",
            code: s.code ?? "",
            variables: reads.map((r) => ({ variable: r.name, value_selector: r.selector })),
            outputs: Object.fromEntries(s.writes.map((w) => [w.name, { type: w.type, children: null }])),
            gates: s.gates.map((g) => this.directGate(g)),
          },
        },
        s.id,
      );
      this.connect(tails, last);
      for (const w of s.writes) writeSel[w.name] = [s.id, w.name];
    } else if (s.kind === "tool") {
      last = this.toolStep(s, reads, tails, env, parentId, writeSel);
    } else if (s.kind === "approval") {
      last = this.approvalStep(s, reads, tails, parentId, writeSel);
    } else if (s.tools && s.tools.length > 0) {
      last = this.agentStep(s, reads, tails, parentId, writeSel);
    } else {
      const schema = {
        type: "object",
        properties: Object.fromEntries(
          s.writes.map((w) => [
            w.name,
            { ...jsonSchemaOf(w.type), ...(w.description ? { description: w.description } : {}) },
          ]),
        ),
        required: s.writes.map((w) => w.name),
        additionalProperties: false,
      };
      last = this.add(
        {
          id: s.id,
          type: "llm",
          title,
          ...this.inParent(parentId),
          config: {
            model: this.llmModel,
            prompt_template: [{ role: "system", text: this.systemText(s) }, this.userMessage(reads)],
            ...(reads.every((r) => lexes(r.selector))
              ? {}
              : {
                  prompt_config: {
                    jinja2_variables: reads.map((r, i) => ({ variable: `v${i}`, value_selector: r.selector })),
                  },
                }),
            context: { enabled: false, variable_selector: [] },
            vision: { enabled: false },
            structured_output: { schema },
            structured_output_switch_on: true,
            gates: this.objectGates(s, "structured_output", false),
          },
        },
        s.id,
      );
      this.connect(tails, last);
      for (const w of s.writes) writeSel[w.name] = [s.id, "structured_output", w.name];
    }
    for (const w of s.writes) env.set(w.name, { selector: writeSel[w.name] ?? [last, w.name], type: w.type });
    return [{ node: last, port: "source" }];
  }

  /**
   * An approval: a human-input node shows the instruction and what the step reads, asks for each string write
   * (except `decision`), and offers Approve / Reject; `<id>_out` turns the answer into the writes on every
   * path, the timeout included: `decision` is approve, reject or timeout, a boolean write is "approved".
   */
  private approvalStep(
    s: Step,
    reads: ReadonlyArray<{ name: string; selector: string[] }>,
    tails: Tail[],
    parentId: string | undefined,
    writeSel: Record<string, string[]>,
  ): string {
    const fields = s.writes.filter((w) => w.type === "string" && w.name !== "decision");
    const shown = reads.filter((r) => lexes(r.selector)).map((r) => `${r.name}: ${ref(r.selector)}`);
    const asked = fields.map((w) => `${w.description ?? w.name}: {{#$output.${w.name}#}}`);
    const hours = s.timeout_hours ?? 0;
    const ask = this.add(
      {
        id: s.id,
        type: "human-input",
        title: s.title ?? s.id,
        ...this.inParent(parentId),
        config: {
          desc: s.instruction,
          form_content: [s.instruction.trim(), ...shown, ...asked].join("\n\n"),
          inputs: fields.map((w) => ({
            type: "paragraph",
            output_variable_name: w.name,
            default: { type: "constant", selector: [], value: "" },
          })),
          user_actions: [
            { id: "approve", title: "Approve", button_style: "primary" },
            { id: "reject", title: "Reject", button_style: "default" },
          ],
          timeout: hours,
          timeout_unit: "hour",
        },
      },
      s.id,
    );
    this.connect(tails, ask);
    const outId = this.freshId(`${s.id}_out`);
    const result = s.writes
      .map((w) =>
        w.name === "decision" && w.type === "string"
          ? `decision: action || "timeout"`
          : w.type === "boolean"
            ? `${w.name}: action === "approve"`
            : `${w.name}: ${w.name} ?? ""`,
      )
      .join(", ");
    this.add(
      {
        id: outId,
        type: "code",
        title: `${s.title ?? s.id} (answer)`,
        ...this.inParent(parentId),
        config: {
          code_language: "javascript",
          code: `function main({ action, ${fields.map((w) => w.name).join(", ")} }) {\n  return { ${result} };\n}`,
          variables: [
            { variable: "action", value_selector: [s.id, "__action_id"] },
            ...fields.map((w) => ({ variable: w.name, value_selector: [s.id, w.name] })),
          ],
          outputs: Object.fromEntries(s.writes.map((w) => [w.name, { type: w.type, children: null }])),
        },
      },
      s.id,
    );
    for (const port of ["approve", "reject", "__timeout"]) this.connect([{ node: ask, port }], outId);
    for (const w of s.writes) writeSel[w.name] = [outId, w.name];
    return outId;
  }

  private systemText(s: Step): string {
    const fields = s.writes
      .map((w) => `- ${w.name} (${w.type})${w.description ? `: ${w.description}` : ""}`)
      .join("\n");
    return `${s.instruction.trim()}\n\nReply with one JSON object with exactly these fields:\n${fields}`;
  }

  /** The user message: `{{#…#}}` references, or Jinja2 variables where a selector does not lex as one. */
  private userMessage(reads: ReadonlyArray<{ name: string; selector: string[] }>): Record<string, unknown> {
    if (reads.every((r) => lexes(r.selector))) return { role: "user", text: this.userText(reads) };
    const text = reads.map((r, i) => `${r.name}: {{ v${i} }}`).join("\n");
    return { role: "user", text, edition_type: "jinja2", jinja2_text: text };
  }

  private userText(reads: ReadonlyArray<{ name: string; selector: string[] }>): string {
    if (reads.length === 0) return "Produce the fields now.";
    return reads.map((r) => `${r.name}: ${ref(r.selector)}`).join("\n");
  }

  private toolStep(
    s: Step,
    reads: ReadonlyArray<{ name: string; selector: string[] }>,
    tails: Tail[],
    env: Env,
    parentId: string | undefined,
    writeSel: Record<string, string[]>,
  ): string {
    const toolName = s.tool ?? "";
    const spec = this.specs.get(toolName);
    const providerId = this.opts.tools?.providerId ?? "tools";
    if (!spec)
      this.diag(
        "compile.unknown_tool",
        `step "${s.id}" calls tool "${toolName}", which is not among the tool specs`,
        s.id,
      );
    const props = ((spec?.parameters as { properties?: Record<string, { type?: string }> } | undefined)?.properties ??
      {}) as Record<string, { type?: string }>;
    const required = new Set(((spec?.parameters as { required?: string[] } | undefined)?.required ?? []) as string[]);
    const readNames = new Set(reads.map((r) => r.name));
    const params: Record<string, unknown> = {};
    for (const [p, a] of Object.entries(s.args ?? {})) {
      if (spec && !(p in props))
        this.diag("compile.unknown_parameter", `step "${s.id}": tool "${toolName}" has no parameter "${p}"`, s.id);
      if (typeof a === "string") {
        if (!readNames.has(a))
          this.diag(
            "compile.undeclared_read",
            `step "${s.id}" passes artifact "${a}" to "${p}" but does not list it in reads`,
            s.id,
            "warning",
          );
        params[p] = { type: "variable", value: this.read(env, a, s.id) };
      } else params[p] = { type: "constant", value: a.const };
    }
    for (const p of required) {
      if (!(p in params))
        this.diag(
          "compile.missing_argument",
          `step "${s.id}": required parameter "${p}" of tool "${toolName}" is not supplied`,
          s.id,
        );
    }
    const toolId = this.add(
      {
        id: s.id,
        type: "tool",
        title: s.title ?? toolName,
        ...this.inParent(parentId),
        config: {
          desc: s.instruction,
          provider_id: providerId,
          provider_type: "builtin",
          provider_name: providerId,
          tool_name: toolName,
          tool_label: toolName,
          tool_configurations: {},
          tool_parameters: params,
          paramSchemas: Object.entries(props).map(([name, p]) => ({
            name,
            required: required.has(name),
            form: "llm",
            type: p?.type ?? "string",
          })),
          ...(s.on_error === "continue" ? { error_strategy: "default-value", default_value: [] } : {}),
        },
      },
      s.id,
    );
    this.connect(tails, toolId);
    const fielded = s.writes.filter((w) => w.field !== undefined);
    for (const w of s.writes) if (w.field === undefined) writeSel[w.name] = [toolId, "text"];
    if (fielded.length === 0) {
      if (s.gates.length)
        this.diag("compile.gate_dropped", `step "${s.id}": gates on a tool's text are not checked`, s.id, "warning");
      return toolId;
    }
    // A tool's JSON result is `json[0]`, whose path does not lex as a template reference; a small unpack
    // node turns its fields into typed, referenceable artifacts (and is where their gates are checked).
    const outId = this.freshId(`${s.id}_out`);
    const picks = fielded.map((w) => `    ${JSON.stringify(w.name)}: pick(${JSON.stringify(w.field)}),`).join("\n");
    this.add(
      {
        id: outId,
        type: "code",
        title: `${s.title ?? toolName} result`,
        ...this.inParent(parentId),
        config: {
          code_language: "javascript",
          code: `function main({ r }) {\n  const o = Array.isArray(r) && r[0] && typeof r[0] === "object" ? r[0] : {};\n  const pick = (p) => {\n    const v = String(p).split(".").reduce((x, k) => (x == null ? undefined : x[k]), o);\n    return v === undefined ? null : v;\n  };\n  return {\n${picks}\n  };\n}\n`,
          variables: [{ variable: "r", value_selector: [toolId, "json"] }],
          outputs: Object.fromEntries(fielded.map((w) => [w.name, { type: w.type, children: null }])),
          gates: s.gates.filter((g) => fielded.some((w) => w.name === g.artifact)).map((g) => this.directGate(g)),
        },
      },
      s.id,
    );
    this.connect([{ node: toolId, port: "source" }], outId);
    for (const w of fielded) writeSel[w.name] = [outId, w.name];
    return outId;
  }

  private agentStep(
    s: Step,
    reads: ReadonlyArray<{ name: string; selector: string[] }>,
    tails: Tail[],
    parentId: string | undefined,
    writeSel: Record<string, string[]>,
  ): string {
    const providerId = this.opts.tools?.providerId ?? "tools";
    const tools = (s.tools ?? []).map((name) => {
      const spec = this.specs.get(name);
      if (!spec)
        this.diag(
          "compile.unknown_tool",
          `agent step "${s.id}" may call tool "${name}", which is not among the tool specs`,
          s.id,
        );
      return {
        enabled: true,
        provider_name: providerId,
        type: "builtin",
        tool_name: name,
        tool_label: name,
        tool_description: spec?.description ?? name,
      };
    });
    for (const r of reads)
      if (!lexes(r.selector))
        this.diag(
          "compile.name_too_long",
          `agent step "${s.id}" reads "${r.name}", whose name is too long for a template reference (30 characters); read it through a code step`,
          s.id,
        );
    const agentId = this.add(
      {
        id: s.id,
        type: "agent",
        title: s.title ?? s.id,
        ...this.inParent(parentId),
        config: {
          agent_strategy_provider_name: "langgenius/agent/agent",
          agent_strategy_name: "function_calling",
          agent_strategy_label: "FunctionCalling",
          agent_parameters: {
            model: {
              type: "constant",
              value: {
                provider: this.llmModel.provider,
                model: this.llmModel.name || "default",
                mode: "chat",
                completion_params: this.llmModel.completion_params ?? {},
              },
            },
            instruction: { type: "constant", value: this.systemText(s) },
            query: { type: "constant", value: this.userText(reads) },
            tools: { type: "constant", value: tools },
            maximum_iterations: { type: "constant", value: this.opts.agentMaxIterations ?? 8 },
          },
          gates: this.objectGates(s, "text", true),
        },
      },
      s.id,
    );
    this.connect(tails, agentId);
    const outId = this.freshId(`${s.id}_out`);
    const picks = s.writes
      .map(
        (w) =>
          `    ${JSON.stringify(w.name)}: o[${JSON.stringify(w.name)}] === undefined ? null : o[${JSON.stringify(w.name)}],`,
      )
      .join("\n");
    this.add(
      {
        id: outId,
        type: "code",
        title: `${s.title ?? s.id} answer`,
        ...this.inParent(parentId),
        config: {
          code_language: "javascript",
          code: `function main({ text }) {\n  let o = {};\n  const m = String(text == null ? "" : text).match(/\\{[\\s\\S]*\\}/);\n  try {\n    o = m ? JSON.parse(m[0]) : {};\n  } catch (e) {\n    o = {};\n  }\n  return {\n${picks}\n  };\n}\n`,
          variables: [{ variable: "text", value_selector: [agentId, "text"] }],
          outputs: Object.fromEntries(s.writes.map((w) => [w.name, { type: w.type, children: null }])),
        },
      },
      s.id,
    );
    this.connect([{ node: agentId, port: "source" }], outId);
    for (const w of s.writes) writeSel[w.name] = [outId, w.name];
    return outId;
  }

  private directGate(g: ModelGate): Record<string, unknown> {
    return {
      output: g.artifact,
      check: g.check,
      ...(g.value !== undefined ? { value: g.value } : {}),
      ...(g.message ? { message: g.message } : {}),
    };
  }

  /**
   * Gates on fields of one JSON object output (an llm's structured_output, an agent's JSON text): the
   * engine checks top-level outputs, so they become one json_schema gate; checks the schema subset cannot
   * say (regex, lengths) are reported as weakened to presence.
   */
  private objectGates(s: Step, output: string, asText: boolean): Array<Record<string, unknown>> {
    if (s.gates.length === 0) return [];
    const properties: Record<string, Record<string, unknown>> = {};
    const required = new Set<string>();
    const messages: string[] = [];
    for (const g of s.gates) {
      required.add(g.artifact);
      const p = properties[g.artifact] ?? {};
      properties[g.artifact] = p;
      if (g.message) messages.push(g.message);
      if (g.check === "one_of" && Array.isArray(g.value)) p.enum = g.value;
      else if (g.check === "json_schema" && g.value && typeof g.value === "object") Object.assign(p, g.value);
      else if (g.check !== "not_empty")
        this.diag(
          "compile.gate_weakened",
          `step "${s.id}": the ${g.check} gate on "${g.artifact}" is checked only for presence on this node type`,
          s.id,
          "warning",
        );
    }
    const schema = { type: "object", required: [...required], properties };
    return [
      {
        output,
        check: "json_schema",
        value: schema,
        message: messages.length
          ? messages.join("; ")
          : `${asText ? "the answer" : "the structured output"} must have ${[...required].join(", ")} as specified`,
      },
    ];
  }

  private conditions(
    c: ModelCondition,
    env: Env,
    nodeId: string,
    override?: (artifact: string) => string[] | undefined,
  ) {
    return c.conditions.map((a, i) => ({
      id: `${nodeId}-${i}`,
      variable_selector: [...(override?.(a.artifact) ?? this.read(env, a.artifact, nodeId)), ...(a.path ?? [])],
      comparison_operator: a.comparison_operator,
      value: a.value,
    }));
  }

  private branch(
    b: Branch,
    thenItems: Item[],
    elseItems: Item[],
    tails: Tail[],
    env: Env,
    parentId: string | undefined,
  ): Tail[] {
    const ifId = this.add(
      {
        id: b.id,
        type: "if-else",
        title: b.id,
        ...this.inParent(parentId),
        config: {
          ...(b.source ? { desc: b.source } : {}),
          cases: [
            {
              case_id: "true",
              logical_operator: b.condition.logical_operator,
              conditions: this.conditions(b.condition, env, b.id),
            },
          ],
        },
      },
      b.id,
    );
    this.connect(tails, ifId);
    const envT: Env = new Map(env);
    const envE: Env = new Map(env);
    const tT = this.block(thenItems, [{ node: ifId, port: "true" }], envT, parentId);
    const tE = this.block(elseItems, [{ node: ifId, port: "false" }], envE, parentId);
    const merges: Array<{ name: string; type: ArtifactType; variables: string[][] }> = [];
    for (const name of new Set([...envT.keys(), ...envE.keys()])) {
      const t = envT.get(name);
      const e = envE.get(name);
      const before = env.get(name);
      if (t && e && t.selector.join(".") === e.selector.join(".")) continue;
      if (t && e) {
        if (t.type !== e.type)
          this.diag(
            "compile.join_type_mismatch",
            `artifact "${name}" is ${t.type} on the then-path of "${b.id}" but ${e.type} on the else-path`,
            b.id,
          );
        const same = (x: Binding) => before !== undefined && x.selector.join(".") === before.selector.join(".");
        const ordered = [t, e].sort((x, y) => Number(same(x)) - Number(same(y)));
        merges.push({ name, type: t.type, variables: ordered.map((x) => x.selector) });
      } else {
        // Written on one path only: not merged, so a later read is what the analyser rejects (ref.not_available).
        env.set(name, (t ?? e)!);
      }
    }
    if (merges.length === 0) return [...tT, ...tE];
    const joinId = this.freshId(`${b.id}_join`);
    const config =
      merges.length === 1
        ? { output_type: merges[0]!.type, variables: merges[0]!.variables }
        : {
            output_type: "any",
            variables: [],
            advanced_settings: {
              group_enabled: true,
              groups: merges.map((m) => ({
                group_name: m.name,
                output_type: m.type,
                variables: m.variables,
                groupId: `${joinId}_${m.name}`,
              })),
            },
          };
    this.add(
      { id: joinId, type: "variable-aggregator", title: `${b.id} join`, ...this.inParent(parentId), config },
      b.id,
    );
    this.connect([...tT, ...tE], joinId);
    for (const m of merges)
      env.set(m.name, {
        selector: merges.length === 1 ? [joinId, "output"] : [joinId, m.name, "output"],
        type: m.type,
      });
    return [{ node: joinId, port: "source" }];
  }

  private loop(l: Loop, body: Item[], tails: Tail[], env: Env, parentId: string | undefined): Tail[] {
    const written = new Map<string, ArtifactType>();
    const collect = (items: readonly Item[]) => {
      for (const it of items) {
        if (it.kind === "step") for (const w of it.step.writes) written.set(w.name, w.type);
        else if (it.kind === "branch") {
          collect(it.then);
          collect(it.else);
        } else collect(it.body);
      }
    };
    collect(body);
    const startId = this.freshId(`${l.id}_start`);
    const loopVars = [...written].map(([name, type]) => {
      const before = env.get(name);
      return before
        ? { label: name, var_type: type, value_type: "variable", value: before.selector }
        : { label: name, var_type: type, value_type: "constant" };
    });
    this.add(
      {
        id: l.id,
        type: "loop",
        title: l.id,
        ...this.inParent(parentId),
        config: {
          ...(l.source ? { desc: l.source } : {}),
          start_node_id: startId,
          loop_count: l.max_rounds,
          logical_operator: l.break_condition.logical_operator,
          break_conditions: this.conditions(l.break_condition, env, l.id, (a) =>
            written.has(a) ? [l.id, a] : undefined,
          ),
          loop_variables: loopVars,
        },
      },
      l.id,
    );
    this.connect(tails, l.id);
    this.add({ id: startId, type: "loop-start", title: `${l.id} start`, parentId: l.id, config: {} }, l.id);
    const inner: Env = new Map(env);
    for (const [name, type] of written) inner.set(name, { selector: [l.id, name], type });
    const bodyTails = this.block(body, [{ node: startId, port: "source" }], inner, l.id);
    const items = [...written.keys()]
      .map((name) => ({ name, sel: inner.get(name)!.selector }))
      .filter((x) => x.sel.join(".") !== `${l.id}.${x.name}`)
      .map((x) => ({
        variable_selector: [l.id, x.name],
        input_type: "variable",
        operation: "over-write",
        value: x.sel,
      }));
    const carryId = this.freshId(`${l.id}_carry`);
    this.add(
      { id: carryId, type: "assigner", title: `${l.id} carry state`, parentId: l.id, config: { version: "2", items } },
      l.id,
    );
    this.connect(bodyTails, carryId);
    for (const [name, type] of written) env.set(name, { selector: [l.id, name], type });
    return [{ node: l.id, port: "source" }];
  }
}
