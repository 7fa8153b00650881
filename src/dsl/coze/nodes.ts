import { describeNode } from "../../ir/describe.js";
import { formatSelector, templateRefs } from "../../ir/selector.js";
import { isArrayType, normaliseType, type ValueType } from "../../ir/types.js";
import type { WorkflowNode } from "../../ir/workflow.js";
import { normaliseOperator } from "../../nodes/conditions.js";
import { type ExportContext, literal, ParamBuilder, stringLiteral } from "./context.js";
import { unsupported } from "./errors.js";
import type { CozeBlockInput, CozeParam, CozeVariable } from "./schema.js";
import { cozeTypeOf } from "./types.js";

/** What a converter gives for one node: its Coze type id and `data` (minus nodeMeta). */
export interface ConvertedNode {
  type: string;
  inputs: Record<string, unknown>;
  outputs?: Array<CozeVariable | CozeParam>;
  version?: string;
  /** Port renames for this node's outgoing edges (Weft port -> Coze port; "" = default port). */
  ports: Record<string, string>;
  /** Further Coze ports that lead where a Weft port leads (the intent node's `default`). */
  alsoPorts?: Record<string, string[]>;
}

type Config = Record<string, any>;

function configOf(node: WorkflowNode, ctx: ExportContext): Config {
  const desc = describeNode(node, ctx.nodeTypes);
  if (!desc.known || !desc.config) {
    const why = desc.configDiagnostics[0]?.message ?? `node type "${node.type}" is unknown`;
    unsupported(`its config is invalid: ${why}`);
  }
  return desc.config as Config;
}

function variable(name: string, t: ValueType, what: string, extra: Partial<CozeVariable> = {}): CozeVariable {
  const typed = cozeTypeOf(t, what);
  return {
    name,
    type: typed.type,
    ...(typed.assistType ? { assistType: typed.assistType } : {}),
    ...(typed.schema ? { schema: typed.schema as CozeVariable["schema"] } : {}),
    ...extra,
  };
}

// ------------------------------------------------------------------------------------------------
// Error handling (Dify error_strategy / retry_config -> Coze settingOnError, COZE.md §2.5)

const ERROR_OUTPUTS: CozeVariable[] = [
  {
    name: "errorBody",
    type: "object",
    readonly: true,
    schema: [
      { name: "errorMessage", type: "string", readonly: true },
      { name: "errorCode", type: "string", readonly: true },
    ],
  },
  { name: "isSuccess", type: "boolean", readonly: true },
];

function errorSetting(
  c: Config,
  timeoutMs: number,
): { setting: Record<string, unknown>; extraOutputs: CozeVariable[]; ports: Record<string, string> } {
  const retry = c.retry_config?.retry_enabled ? Number(c.retry_config.max_retries ?? 0) : 0;
  const strategy = c.error_strategy;
  if (strategy === "fail-branch") {
    return {
      setting: { switch: true, processType: 3, retryTimes: retry, timeoutMs },
      extraOutputs: ERROR_OUTPUTS,
      ports: { source: "default", "fail-branch": "branch_error" },
    };
  }
  if (strategy === "default-value") {
    const data: Record<string, unknown> = {};
    for (const d of (c.default_value ?? []) as Array<{ key: string; value: unknown }>) data[d.key] = d.value;
    return {
      setting: { switch: true, processType: 2, dataOnErr: JSON.stringify(data, null, 4), retryTimes: retry, timeoutMs },
      extraOutputs: ERROR_OUTPUTS,
      ports: {},
    };
  }
  return { setting: { switch: false, processType: 1, retryTimes: retry, timeoutMs }, extraOutputs: [], ports: {} };
}

function noErrorStrategy(c: Config, what: string): void {
  if (c.error_strategy === "fail-branch" || c.error_strategy === "default-value") {
    unsupported(`error_strategy "${c.error_strategy}" is not available on a Coze ${what} node`);
  }
}

// ------------------------------------------------------------------------------------------------
// Start / exit / message

const DEFAULT_CONVERSATION = {
  name: "CONVERSATION_NAME",
  type: "string" as const,
  required: false,
  defaultValue: "Default",
  description: "The conversation this run is bound to (Coze chatflow default).",
};

export function convertStart(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  const outputs: CozeVariable[] = [];
  for (const v of c.variables as Config[]) {
    const t = normaliseType(v.type);
    const extra: Partial<CozeVariable> = { required: !!v.required };
    if (v.label && v.label !== v.variable) extra.description = String(v.label);
    if (v.default !== undefined && v.default !== null && v.default !== "") {
      extra.defaultValue =
        typeof v.default === "string" || typeof v.default === "boolean" ? v.default : JSON.stringify(v.default);
    }
    if (v.type === "select" && Array.isArray(v.options) && v.options.length > 0) {
      ctx.notes.push(
        `start input "${v.variable}": Coze has no select inputs; the allowed options ${JSON.stringify(v.options)} are not enforced`,
      );
    }
    outputs.push(variable(v.variable, t, `start input "${v.variable}"`, extra));
  }
  if (ctx.workflow.mode === "advanced-chat") {
    outputs.unshift({ name: "USER_INPUT", type: "string", required: false }, DEFAULT_CONVERSATION);
  }
  return { type: "1", inputs: {}, outputs, ports: {} };
}

/** Dify end node -> the Coze Exit, returning variables. */
export function exitReturning(params: CozeParam[]): ConvertedNode {
  return { type: "2", inputs: { terminatePlan: "returnVariables", inputParameters: params }, ports: {} };
}

export function endParams(node: WorkflowNode, ctx: ExportContext): CozeParam[] {
  const c = configOf(node, ctx);
  return (c.outputs as Config[]).map((o) => {
    const hint = o.value_type ? normaliseType(o.value_type) : undefined;
    return { name: o.variable, input: ctx.refInput(o.value_selector, node, undefined, hint) };
  });
}

/** An answer node that ends the chat flow -> the Exit answering with its text. */
export function exitAnswering(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  const pb = new ParamBuilder(ctx, node);
  const content = pb.template(c.answer ?? "", "answer");
  return {
    type: "2",
    inputs: {
      terminatePlan: "useAnswerContent",
      content: literal("string", content),
      inputParameters: pb.params,
      streamingOutput: true,
    },
    ports: {},
  };
}

/** An answer node mid-flow (or one of several) -> an OutputEmitter message. */
export function convertAnswer(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "message");
  const pb = new ParamBuilder(ctx, node);
  const content = pb.template(c.answer ?? "", "answer");
  return {
    type: "13",
    inputs: { content: literal("string", content), inputParameters: pb.params, streamingOutput: true },
    ports: {},
  };
}

// ------------------------------------------------------------------------------------------------
// LLM

export interface ModelChoice {
  /** Coze `modelType`: the model id in the target Coze instance's model manager. */
  modelType: number;
  /** Coze `modleName` (display name). */
  modelName: string;
}

function modelParams(
  c: Config,
  ctx: ExportContext,
  node: WorkflowNode,
): { list: Map<string, CozeBlockInput>; choice: ModelChoice } {
  const provider = String(c.model?.provider ?? "");
  const name = String(c.model?.name ?? "");
  const choice = ctx.modelFor(provider, name, node);
  const cp = (c.model?.completion_params ?? {}) as Record<string, unknown>;
  const list = new Map<string, CozeBlockInput>();
  // Coze parses these numbers with strconv: they must be strings (COZE.md §2.6, nodes/llm/llm.go).
  const num = (v: unknown, fallback: string) =>
    typeof v === "number" || (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)))
      ? String(v)
      : fallback;
  list.set("temperature", literal("float", num(cp.temperature, "0.7"), 4));
  list.set("maxTokens", literal("integer", num(cp.max_tokens, "4096"), 2));
  if (cp.top_p !== undefined) list.set("topP", literal("float", num(cp.top_p, "1"), 4));
  list.set("responseFormat", literal("integer", "0", 2));
  list.set("modleName", literal("string", choice.modelName, 1));
  list.set("modelType", literal("integer", String(choice.modelType), 2));
  list.set("generationDiversity", literal("string", "default_val", 1));
  const dropped = Object.keys(cp).filter((k) => !["temperature", "max_tokens", "top_p"].includes(k));
  if (dropped.length > 0) ctx.notes.push(`node ${node.id}: model parameters ${dropped.join(", ")} are not exported`);
  return { list, choice };
}

/** Dify's memory only exists in chat apps; workflow-mode runs have no conversation to remember. */
function memoryOn(c: Config, ctx: ExportContext): boolean {
  return !!c.memory && ctx.workflow.mode === "advanced-chat";
}

function historySetting(c: Config, node: WorkflowNode, ctx: ExportContext): { enabled: boolean; rounds: number } {
  const m = c.memory;
  if (!memoryOn(c, ctx)) return { enabled: false, rounds: 3 };
  const size = Number(m.window?.size);
  if (m.window?.enabled && Number.isFinite(size) && size > 0) return { enabled: true, rounds: size };
  ctx.notes.push(`node ${node.id}: Dify keeps the whole conversation as memory; Coze keeps the last 30 rounds`);
  return { enabled: true, rounds: 30 };
}

/**
 * Vision reading `sys.files` in an app whose file upload is off can never see a file: dropping it
 * changes nothing. Any other vision input has no Coze counterpart here.
 */
function checkVision(c: Config, node: WorkflowNode, ctx: ExportContext): void {
  if (!c.vision?.enabled) return;
  const sel: string[] = c.vision.configs?.variable_selector ?? [];
  const readsSysFiles = sel.length === 0 || (sel[0] === "sys" && sel[1] === "files");
  const upload = (
    ctx.workflow.features as { file_upload?: { enabled?: boolean; image?: { enabled?: boolean } } } | undefined
  )?.file_upload;
  // Older DSL versions keep the switch under file_upload.image.
  const uploads = upload?.enabled === true || upload?.image?.enabled === true;
  if (readsSysFiles && !uploads) {
    ctx.notes.push(`node ${node.id}: vision is on but the app takes no file uploads, so it is dropped`);
    return;
  }
  unsupported("vision (image inputs) is not exported to Coze");
}

export function convertLlm(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  checkVision(c, node, ctx);
  if ((c.structured_output_switch_on ?? c.structured_output_enabled) && c.structured_output) {
    unsupported("structured output is not exported to Coze");
  }
  const pb = new ParamBuilder(ctx, node);
  const contextSel: string[] | undefined =
    c.context?.enabled && c.context.variable_selector?.length ? c.context.variable_selector : undefined;
  // Without an enabled context Dify renders {{#context#}} as empty text.
  const contextVar = () => (contextSel ? `{{${pb.bind(contextSel, { name: "context", lenient: "string" })}}}` : "");
  const messages: Config[] = Array.isArray(c.prompt_template)
    ? c.prompt_template
    : [{ role: "user", ...c.prompt_template }];
  let system = "";
  let user = "";
  let seenUser = false;
  for (const [i, m] of messages.entries()) {
    if (m.edition_type === "jinja2")
      unsupported(`prompt_template[${i}] is a Jinja2 prompt; Coze prompts are plain templates`);
    const text = pb.template(String(m.text ?? ""), `prompt_template[${i}]`, contextVar);
    if (m.role === "assistant")
      unsupported(`prompt_template[${i}] is an assistant message; Coze's LLM node has only a system and a user prompt`);
    if (m.role === "system") {
      if (seenUser || system !== "")
        unsupported(`prompt_template[${i}]: Coze's LLM node takes one system prompt before the user prompt`);
      system = text;
    } else {
      if (seenUser) unsupported(`prompt_template[${i}]: Coze's LLM node takes a single user prompt`);
      seenUser = true;
      user = text;
    }
  }
  if (memoryOn(c, ctx)) {
    // With memory, Dify sends the conversation and then the user's query (through
    // query_prompt_template) as the last user message: that is Coze's user prompt.
    if (seenUser) {
      unsupported(
        "with memory on, Dify sends the user query after the prompt's own user message; Coze's LLM node has one user prompt",
      );
    }
    let q = String(c.memory.query_prompt_template ?? "") || "{{#sys.query#}}";
    // Files reach the model only through vision, which is refused above; the reference renders nothing.
    q = q.replace(/\s*\{\{#sys\.files#\}\}/g, "");
    user = pb.template(q, "memory.query_prompt_template", contextVar);
  }
  const { list } = modelParams(c, ctx, node);
  const history = historySetting(c, node, ctx);
  list.set("prompt", literal("string", user, 1));
  list.set("systemPrompt", literal("string", system, 1));
  list.set("enableChatHistory", literal("boolean", history.enabled, 3));
  list.set("chatHistoryRound", literal("integer", String(history.rounds), 2));
  const err = errorSetting(c, 600_000);
  return {
    type: "3",
    inputs: {
      inputParameters: pb.params,
      llmParam: [...list].map(([name, input]) => ({ name, input })),
      settingOnError: err.setting,
    },
    outputs: [{ name: "output", type: "string" }, ...err.extraOutputs],
    version: "3",
    ports: err.ports,
  };
}

// ------------------------------------------------------------------------------------------------
// Code

const PY_MAIN = /^(async[ \t]+)?def[ \t]+main[ \t]*\(/m;

/**
 * Dify calls `main(**inputs)` and takes the returned dict; Coze calls `async def main(args)` with
 * the inputs in `args.params`. Rename the user's function and add the Coze entry point that calls it.
 */
export function wrapPython(code: string, names: readonly string[]): string {
  const m = PY_MAIN.exec(code);
  if (!m) unsupported("the Python code has no top-level `def main(...)`");
  const isAsync = !!m[1];
  const renamed = code.replace(PY_MAIN, `${m[1] ?? ""}def _dify_main(`);
  const args = names.map((n) => `${JSON.stringify(n)}: params.get(${JSON.stringify(n)})`).join(", ");
  return [
    renamed.replace(/\s+$/, ""),
    "",
    "",
    "# Coze entry point: Dify passed the inputs as keyword arguments.",
    "async def main(args: Args) -> Output:",
    "    params = args.params",
    `    return ${isAsync ? "await " : ""}_dify_main(**{${args}})`,
    "",
  ].join("\n");
}

export function convertCode(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  if (c.code_language !== "python3") {
    unsupported(`${c.code_language} code: Coze Studio's code node only runs Python (nodes/code/code.go)`);
  }
  if (!c.outputs || Object.keys(c.outputs).length === 0)
    unsupported("the code node declares no outputs; Coze needs typed outputs");
  const params: CozeParam[] = (c.variables as Config[]).map((v) => ({
    name: v.variable,
    input: ctx.refInput(v.value_selector, node, undefined, v.value_type ? normaliseType(v.value_type) : undefined),
  }));
  const outputs: CozeVariable[] = Object.entries(c.outputs as Record<string, { type: string }>).map(([name, o]) =>
    variable(name, normaliseType(o.type), `code output "${name}"`),
  );
  const err = errorSetting(c, 60_000);
  return {
    type: "5",
    inputs: {
      inputParameters: params,
      code: wrapPython(
        c.code,
        params.map((p) => p.name),
      ),
      language: 3,
      settingOnError: err.setting,
    },
    outputs: [...outputs, ...err.extraOutputs],
    ports: err.ports,
  };
}

// ------------------------------------------------------------------------------------------------
// IF/ELSE -> Selector

/** Dify comparison operator -> Coze operator number (COZE.md §2.5). */
const OPERATOR_IDS: Record<string, number> = {
  "=": 1,
  is: 1,
  "≠": 2,
  "is not": 2,
  contains: 7,
  "not contains": 8,
  empty: 9,
  "not empty": 10,
  ">": 13,
  "≥": 14,
  "<": 15,
  "≤": 16,
};

function conditionValue(
  value: unknown,
  leftType: ValueType,
  node: WorkflowNode,
  ctx: ExportContext,
  field: string,
): CozeBlockInput {
  if (typeof value === "string") {
    const refs = templateRefs(value);
    if (refs.length === 1 && refs[0]!.raw === value.trim()) return ctx.refInput(refs[0]!.selector, node);
    if (refs.length > 0) unsupported(`${field}: a compared value mixing text and references has no Coze equivalent`);
  }
  const scalar = isArrayType(leftType) ? (leftType.slice(6, -1) as ValueType) : leftType;
  if (scalar === "number") {
    const n = typeof value === "number" ? value : Number(value);
    if (value === "" || value === null || Number.isNaN(n))
      unsupported(`${field}: ${JSON.stringify(value)} is not a number`);
    return literal("float", n, 4);
  }
  if (scalar === "string") return stringLiteral(value === null || value === undefined ? "" : String(value));
  unsupported(`${field}: comparing a ${leftType} value is not exported`);
}

export function convertIfElse(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "condition");
  const cases: Config[] =
    c.cases && c.cases.length > 0
      ? c.cases
      : c.conditions
        ? [{ case_id: "true", logical_operator: c.logical_operator ?? "and", conditions: c.conditions }]
        : [];
  if (cases.length === 0) unsupported("the if-else node has no cases");
  const ports: Record<string, string> = { false: "false" };
  const branches = cases.map((k, ci) => {
    ports[String(k.case_id)] = ci === 0 ? "true" : `true_${ci}`;
    // Dify treats a case without conditions as true; what Coze does with one is not documented.
    if (!k.conditions?.length) unsupported(`cases[${ci}] has no conditions`);
    const conditions = (k.conditions as Config[]).map((cond, i) => {
      const field = `cases[${ci}].conditions[${i}]`;
      if (cond.sub_variable_condition?.conditions?.length)
        unsupported(`${field}: file sub-conditions have no Coze equivalent`);
      const op = normaliseOperator(String(cond.comparison_operator));
      const opId = op ? OPERATOR_IDS[op] : undefined;
      if (!opId) unsupported(`${field}: operator "${cond.comparison_operator}" has no Coze equivalent`);
      const sel: string[] = cond.variable_selector;
      const leftType = ctx.typeOf(sel, node);
      if (leftType === "boolean") unsupported(`${field}: boolean comparisons are not exported`);
      const left = { input: ctx.refInput(sel, node) };
      if (opId === 9 || opId === 10) return { operator: opId, left };
      // Dify compares numbers parsed from text; Coze's ordering operators take numbers only.
      if (opId >= 13 && leftType !== "number") {
        unsupported(`${field}: "${cond.comparison_operator}" on a ${leftType} value has no Coze equivalent`);
      }
      if ((opId === 7 || opId === 8) && !(leftType === "string" || isArrayType(leftType))) {
        unsupported(`${field}: "contains" on a ${leftType} value has no Coze equivalent`);
      }
      return { operator: opId, left, right: { input: conditionValue(cond.value, leftType, node, ctx, field) } };
    });
    return { condition: { logic: k.logical_operator === "or" ? 1 : 2, conditions } };
  });
  return { type: "8", inputs: { branches }, ports };
}

// ------------------------------------------------------------------------------------------------
// Question classifier -> IntentDetector

export function convertClassifier(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "intent");
  checkVision(c, node, ctx);
  if (!c.query_variable_selector?.length) unsupported("the classifier reads no query");
  const pb = new ParamBuilder(ctx, node);
  const query = pb.bind(c.query_variable_selector, { name: "query", lenient: "string" });
  const instruction = pb.template(String(c.instruction || c.instructions || ""), "instruction");
  const ports: Record<string, string> = {};
  const intents = (c.classes as Config[]).map((k, i) => {
    if (templateRefs(String(k.name)).length > 0)
      unsupported(`classes[${i}].name: class names with references have no Coze equivalent`);
    ports[String(k.id)] = `branch_${i}`;
    return { name: String(k.name) };
  });
  const provider = String(c.model?.provider ?? "");
  const choice = ctx.modelFor(provider, String(c.model?.name ?? ""), node);
  const cp = (c.model?.completion_params ?? {}) as Record<string, unknown>;
  const history = historySetting(c, node, ctx);
  // Dify falls back to the first class when the model's answer matches none (DIFY.md §2.10);
  // Coze takes its "default" port then, so that port leads where the first class does.
  const first = (c.classes as Config[])[0];
  const alsoPorts = first ? { [String(first.id)]: ["default"] } : undefined;
  return {
    type: "22",
    inputs: {
      inputParameters: pb.params,
      intents,
      mode: "all",
      chatHistorySetting: { enableChatHistory: history.enabled, chatHistoryRound: history.rounds },
      llmParam: {
        modelName: choice.modelName,
        modelType: choice.modelType,
        generationDiversity: "default_val",
        temperature: typeof cp.temperature === "number" ? cp.temperature : 0.7,
        maxTokens: typeof cp.max_tokens === "number" ? cp.max_tokens : 1024,
        responseFormat: 2,
        prompt: literal("string", `{{${query}}}`),
        systemPrompt: literal("string", instruction),
        enableChatHistory: history.enabled,
        chatHistoryRound: history.rounds,
      },
      settingOnError: { processType: 1, timeoutMs: 60_000, retryTimes: 0 },
    },
    outputs: [
      { name: "classificationId", type: "integer" },
      { name: "reason", type: "string" },
    ],
    ports,
    ...(alsoPorts ? { alsoPorts } : {}),
  };
}

// ------------------------------------------------------------------------------------------------
// Template transform (Jinja2) -> TextProcessor concat, only when the template is plain substitution

const CONCAT_CHARS = [
  { label: "newline", value: "\n", isDefault: true },
  { label: "tab", value: "\t", isDefault: true },
  { label: "full stop", value: "。", isDefault: true },
  { label: "comma", value: "，", isDefault: true },
  { label: "semicolon", value: "；", isDefault: true },
  { label: "space", value: " ", isDefault: true },
];

export function concatParams(template: string, separator: string): CozeParam[] {
  return [
    { name: "concatResult", input: stringLiteral(template) },
    { name: "arrayItemConcatChar", input: stringLiteral(separator) },
    {
      name: "allArrayItemConcatChars",
      input: {
        type: "list",
        schema: {
          type: "object",
          schema: [
            { name: "label", required: true, type: "string" },
            { name: "value", required: true, type: "string" },
            { name: "isDefault", required: true, type: "boolean" },
          ],
        },
        value: { type: "literal", content: CONCAT_CHARS },
      },
    },
  ];
}

/**
 * Jinja2 `{{ name }}` over a string renders exactly like Coze's `{{name}}`, and `{{ list | join(sep) }}`
 * over a list of strings like Coze's `{{list}}` with `arrayItemConcatChar` = sep. Anything else —
 * statements, comments, other filters or expressions, attribute access, whitespace control, other
 * value types (Jinja prints Python reprs) — would render differently, so it is refused.
 */
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", "'": "'", '"': '"', "\\": "\\" };

function unescapePython(s: string): string {
  return s.replace(/\\([nt'"\\])/g, (_m, ch: string) => ESCAPES[ch] ?? ch);
}

export function convertJinjaTemplate(
  template: string,
  vars: ReadonlyMap<string, ValueType>,
): { text: string; separator?: string } {
  if (/\{%|\{#/.test(template))
    unsupported("the Jinja2 template uses statements or comments ({% … %}, {# … #}), which Coze's text node lacks");
  let separator: string | undefined;
  const join =
    /^([A-Za-z_][A-Za-z0-9_]*)\s*\|\s*join\(\s*(?:'((?:[^'\\]|\\[nt'"\\])*)'|"((?:[^"\\]|\\[nt'"\\])*)")\s*\)$/;
  const out = template.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (raw, expr: string) => {
    const j = join.exec(expr);
    const name = j ? j[1]! : expr;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      unsupported(`the Jinja2 expression ${raw} is more than a variable name or a join`);
    const t = vars.get(name);
    if (!t) unsupported(`the Jinja2 template uses ${raw}, which is not one of its variables`);
    if (j) {
      if (t !== "array[string]")
        unsupported(`${raw}: join over a ${t} value does not render like Coze's list concatenation`);
      const sep = unescapePython(j[2] ?? j[3] ?? "");
      if (separator !== undefined && separator !== sep)
        unsupported("the Jinja2 template joins lists with different separators; Coze's text node has one");
      separator = sep;
    } else if (t !== "string") {
      unsupported(
        `template variable "${name}" is a ${t}; only strings (or joined lists of strings) render identically in Coze`,
      );
    }
    return `{{${name}}}`;
  });
  if (/\{\{|\}\}/.test(out.replace(/\{\{[A-Za-z_][A-Za-z0-9_]*\}\}/g, "")))
    unsupported("the Jinja2 template has unbalanced braces");
  // Jinja drops one trailing newline (keep_trailing_newline=False); Coze keeps the text as is.
  const text = out.endsWith("\n") ? out.slice(0, -1) : out;
  return separator === undefined ? { text } : { text, separator };
}

export function convertTemplateTransform(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "text");
  const params: CozeParam[] = [];
  const types = new Map<string, ValueType>();
  for (const v of c.variables as Config[]) {
    const t = ctx.resolve(v.value_selector, node).type;
    types.set(v.variable, t);
    if (t === "string" || t === "array[string]")
      params.push({ name: v.variable, input: ctx.refInput(v.value_selector, node) });
  }
  const { text, separator } = convertJinjaTemplate(String(c.template ?? ""), types);
  // A variable of another type that the template never uses still needs no Coze parameter.
  return {
    type: "15",
    inputs: { method: "concat", inputParameters: params, concatParams: concatParams(text, separator ?? "，") },
    outputs: [{ name: "output", type: "string", required: true }],
    ports: {},
  };
}

// ------------------------------------------------------------------------------------------------
// Variable aggregator

export function convertAggregator(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "variable merge");
  const grouped = c.advanced_settings?.group_enabled;
  const groups: Array<{ name: string; type: string; sels: string[][] }> = grouped
    ? (c.advanced_settings.groups as Config[]).map((g) => ({
        name: g.group_name,
        type: g.output_type,
        sels: g.variables,
      }))
    : [{ name: "output", type: c.output_type, sels: c.variables }];
  const outputs: CozeVariable[] = [];
  const mergeGroups = groups.map((g) => {
    let t = normaliseType(g.type);
    if (t === "any") t = g.sels.map((s) => ctx.typeOf(s, node)).find((x) => x !== "any") ?? "any";
    outputs.push(variable(g.name, t, `group "${g.name}"`));
    return { name: g.name, variables: g.sels.map((s) => ctx.refInput(s, node, undefined, t)) };
  });
  return { type: "32", inputs: { mergeGroups }, outputs, ports: {} };
}

// ------------------------------------------------------------------------------------------------
// HTTP request

function httpTemplate(text: string, node: WorkflowNode, ctx: ExportContext, field: string): string {
  if (/\{\{block_output_/.test(text))
    unsupported(`${field}: the text already contains Coze's {{block_output_…}} syntax`);
  const re = /\{\{#([a-zA-Z0-9_]{1,50}(?:\.[a-zA-Z_][a-zA-Z0-9_]{0,29}){1,10})#\}\}/g;
  return text.replace(re, (_raw, body: string) => {
    const r = ctx.resolve(body.split("."), node);
    return `{{block_output_${r.content.blockID}.${r.content.name}}}`;
  });
}

/** A header/param/form value: one whole reference, or plain text. */
function valueInput(text: string, node: WorkflowNode, ctx: ExportContext, field: string): CozeBlockInput {
  const refs = templateRefs(text);
  if (refs.length === 0) return stringLiteral(text);
  if (refs.length === 1 && refs[0]!.raw === text.trim()) return ctx.refInput(refs[0]!.selector, node, "string");
  unsupported(`${field}: "${text}" mixes text and references; Coze takes a literal or one reference here`);
}

function keyValueLines(text: string, node: WorkflowNode, ctx: ExportContext, field: string): CozeParam[] {
  const out: CozeParam[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.indexOf(":");
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    const value = at < 0 ? "" : line.slice(at + 1).trim();
    if (templateRefs(key).length > 0) unsupported(`${field}: the name "${key}" contains a reference`);
    out.push({ name: key, input: valueInput(value, node, ctx, `${field} "${key}"`) });
  }
  return out;
}

const BODY_TYPES: Record<string, string> = {
  none: "EMPTY",
  json: "JSON",
  "raw-text": "RAW_TEXT",
  "form-data": "FORM_DATA",
  "x-www-form-urlencoded": "FORM_URLENCODED",
  binary: "BINARY",
};

/** The request body: Coze's body type and its data, or unsupported. */
function httpBody(
  c: Config,
  node: WorkflowNode,
  ctx: ExportContext,
): { cozeBody: string; bodyData: Record<string, unknown> } {
  const bodyType = String(c.body?.type ?? "none");
  const cozeBody = BODY_TYPES[bodyType];
  if (!cozeBody) unsupported(`body type "${bodyType}" has no Coze equivalent`);
  const items: Config[] = c.body?.data ?? [];
  const bodyData: Record<string, unknown> = {};
  if (bodyType === "json" || bodyType === "raw-text") {
    const text = items.map((i) => String(i.value ?? "")).join("");
    bodyData[bodyType === "json" ? "json" : "rawText"] = httpTemplate(text, node, ctx, "body");
  } else if (bodyType === "form-data" || bodyType === "x-www-form-urlencoded") {
    const data = items.map((it, i): CozeParam => {
      const field = `body.data[${i}]`;
      if (it.type === "file") {
        if (bodyType !== "form-data" || !it.file?.length)
          unsupported(`${field}: a file item needs form-data and a file selector`);
        return { name: it.key, input: ctx.refInput(it.file, node, undefined, "file") };
      }
      return { name: it.key, input: valueInput(String(it.value ?? ""), node, ctx, field) };
    });
    if (bodyType === "form-data") bodyData.formData = { data };
    else bodyData.formURLEncoded = data;
  } else if (bodyType === "binary") {
    const sel = items[0]?.file;
    if (!sel?.length) unsupported("the binary body names no file");
    bodyData.binary = { fileURL: ctx.refInput(sel, node, undefined, "file") };
  }
  return { cozeBody, bodyData };
}

/** Dify's authorization as Coze's auth block: none, a bearer token, or a custom header. */
function httpAuth(c: Config, node: WorkflowNode, ctx: ExportContext): Record<string, unknown> {
  const a = c.authorization ?? { type: "no-auth" };
  let auth: Record<string, unknown> = {
    authOpen: false,
    authType: "BEARER_AUTH",
    authData: { customData: { addTo: "header" } },
  };
  if (a.type === "api-key") {
    const key = valueInput(String(a.config?.api_key ?? ""), node, ctx, "authorization.config.api_key");
    const kind = a.config?.type ?? "bearer";
    if (kind === "bearer") {
      auth = {
        authOpen: true,
        authType: "BEARER_AUTH",
        authData: { bearerTokenData: [{ name: "token", input: key }] },
      };
    } else if (kind === "custom") {
      auth = {
        authOpen: true,
        authType: "CUSTOM_AUTH",
        authData: {
          customData: {
            addTo: "header",
            data: [
              { name: "Key", input: stringLiteral(String(a.config?.header || "Authorization")) },
              { name: "Value", input: key },
            ],
          },
        },
      };
    } else unsupported(`authorization type "${kind}" has no Coze equivalent`);
  }
  return auth;
}

export function convertHttp(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  const { cozeBody, bodyData } = httpBody(c, node, ctx);
  const auth = httpAuth(c, node, ctx);
  const t = c.timeout ?? {};
  const seconds = Math.max(Number(t.connect ?? 0) || 0, Number(t.read ?? 0) || 0, Number(t.write ?? 0) || 0);
  const err = errorSetting(c, (seconds || 120) * 1000);
  if (c.ssl_verify === false)
    ctx.notes.push(`node ${node.id}: Coze always verifies TLS certificates (Dify ssl_verify=false is dropped)`);
  return {
    type: "45",
    inputs: {
      apiInfo: {
        method: String(c.method ?? "get").toUpperCase(),
        url: httpTemplate(String(c.url ?? ""), node, ctx, "url"),
      },
      headers: keyValueLines(String(c.headers ?? ""), node, ctx, "headers"),
      params: keyValueLines(String(c.params ?? ""), node, ctx, "params"),
      body: { bodyType: cozeBody, bodyData },
      auth,
      // Dify retries only when retry_config says so; Coze's own HTTP retry is turned off to match.
      setting: { timeout: seconds || 120, retryTimes: 0 },
      settingOnError: err.setting,
    },
    outputs: [
      { name: "body", type: "string" },
      { name: "statusCode", type: "integer" },
      { name: "headers", type: "string" },
      ...err.extraOutputs,
    ],
    ports: err.ports,
  };
}

// ------------------------------------------------------------------------------------------------
// Knowledge retrieval

export function convertKnowledge(node: WorkflowNode, ctx: ExportContext): ConvertedNode {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "knowledge");
  if (c.metadata_filtering_mode === "manual" || c.metadata_filtering_mode === "automatic") {
    unsupported("metadata filtering has no Coze equivalent");
  }
  if (c.query_attachment_selector?.length) unsupported("attachment queries have no Coze equivalent");
  if (!c.query_variable_selector?.length) unsupported("the knowledge node reads no query");
  const single = c.retrieval_mode === "single";
  const m = c.multiple_retrieval_config ?? {};
  const topK = (single ? c.retrieval_model?.top_k : m.top_k) ?? 4;
  ctx.notes.push(
    `node ${node.id}: dataset ids ${JSON.stringify(c.dataset_ids)} are Dify ids; pick the matching Coze knowledge bases. Results are {output} records, not Dify's {content, title, metadata}`,
  );
  const datasetParam: CozeParam[] = [
    {
      name: "datasetList",
      input: { type: "list", schema: { type: "string" }, value: { type: "literal", content: c.dataset_ids } },
    },
    { name: "topK", input: literal("integer", topK) },
    { name: "useRerank", input: literal("boolean", !!m.reranking_enable, 3) },
    { name: "useRewrite", input: literal("boolean", false, 3) },
    { name: "isPersonalOnly", input: literal("boolean", false, 3) },
    { name: "minScore", input: literal("float", typeof m.score_threshold === "number" ? m.score_threshold : 0) },
    { name: "strategy", input: literal("integer", 1) },
  ];
  return {
    type: "6",
    inputs: {
      datasetParam,
      inputParameters: [{ name: "Query", input: ctx.refInput(c.query_variable_selector, node, "string") }],
    },
    outputs: [
      { name: "outputList", type: "list", schema: { type: "object", schema: [{ name: "output", type: "string" }] } },
    ],
    ports: {},
  };
}

// ------------------------------------------------------------------------------------------------
// Iteration -> Loop (sequential) or Batch (parallel); the body is exported by the caller

export function convertIteration(node: WorkflowNode, ctx: ExportContext): ConvertedNode & { kind: "loop" | "batch" } {
  const c = configOf(node, ctx);
  noErrorStrategy(c, "loop");
  if (c.error_handle_mode && c.error_handle_mode !== "terminated") {
    unsupported(
      `error_handle_mode "${c.error_handle_mode}" has no Coze equivalent (Coze stops on the first failing item)`,
    );
  }
  if (!c.iterator_selector?.length) unsupported("the iteration has no iterator_selector");
  if (!c.output_selector?.length) unsupported("the iteration has no output_selector");
  const itemInput = ctx.refInput(c.iterator_selector, node);
  if (itemInput.type !== "list") unsupported(`iterator ${formatSelector(c.iterator_selector)} is not a list`);
  const outType = ctx.typeOf(c.output_selector, node);
  if (isArrayType(outType) && c.flatten_output !== false) {
    unsupported("the per-item output is a list, which Dify flattens into one list; Coze collects a list of lists");
  }
  const outRef = ctx.refInput(c.output_selector, node);
  const outTyped = cozeTypeOf(outType, formatSelector(c.output_selector));
  const outputs: CozeParam[] = [
    {
      name: "output",
      input: {
        type: "list",
        schema: {
          type: outTyped.type,
          ...(outTyped.assistType ? { assistType: outTyped.assistType } : {}),
          ...(outTyped.schema ? { schema: outTyped.schema } : {}),
        },
        value: outRef.value,
      },
    },
  ];
  const inputParameters = [{ name: "item", input: itemInput }];
  if (c.is_parallel) {
    ctx.notes.push(`node ${node.id}: Coze's batch node processes at most batchSize (200) items`);
    return {
      kind: "batch",
      type: "28",
      inputs: {
        batchSize: literal("integer", "200"),
        concurrentSize: literal("integer", String(c.parallel_nums ?? 10)),
        inputParameters,
      },
      outputs,
      ports: { source: "batch-output" },
    };
  }
  return {
    kind: "loop",
    type: "21",
    inputs: { loopType: "array", loopCount: literal("integer", "10"), inputParameters, variableParameters: [] },
    outputs,
    ports: { source: "loop-output" },
  };
}
