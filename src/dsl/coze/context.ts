import { describeNode } from "../../ir/describe.js";
import type { NodeTypes } from "../../ir/registry.js";
import { formatSelector, replaceTemplateRefs, TEMPLATE_REF_SOURCE } from "../../ir/selector.js";
import { arrayOf, elementType, normaliseType, type ValueType } from "../../ir/types.js";
import type { Workflow, WorkflowNode } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { unsupported } from "./errors.js";
import type { CozeBlockInput, CozeParam, CozeValueType, RefContent } from "./schema.js";
import { ENTRY_ID } from "./schema.js";
import { cozeTypeOf, rawMetaOf } from "./types.js";

/** A Weft selector resolved to a Coze reference and the Weft type of the value it names. */
export interface ResolvedRef {
  content: RefContent;
  type: ValueType;
}

/**
 * How a Weft output is called on the Coze side: the Coze output name, or why it has none. Keyed by
 * Weft node type, then output name; a node type that is absent keeps its output names.
 */
const OUTPUT_NAMES: Record<string, Record<string, string | { none: string }>> = {
  llm: {
    text: "output",
    reasoning_content: { none: "Coze's LLM node has no separate reasoning output" },
    usage: { none: "Coze's LLM node does not expose token usage" },
    finish_reason: { none: "Coze's LLM node does not expose the finish reason" },
    files: { none: "Coze's LLM node does not output files" },
    structured_output: { none: "structured output is not exported" },
  },
  "http-request": {
    status_code: "statusCode",
    body: "body",
    headers: { none: "Coze's HTTP node gives the response headers as a string, Dify as an object" },
    files: { none: "Coze's HTTP node does not output files" },
  },
  "if-else": {
    result: { none: "Coze's condition node has no outputs" },
    selected_case_id: { none: "Coze's condition node has no outputs" },
  },
  "question-classifier": {
    class_name: { none: "Coze's intent node outputs the class number (classificationId), not its name" },
    class_id: { none: "Coze's intent node outputs a class number, not the Dify class id" },
    class_label: { none: "Coze's intent node has no class label output" },
    usage: { none: "Coze's intent node does not expose token usage" },
  },
  "knowledge-retrieval": { result: "outputList" },
  answer: {
    answer: { none: "a Coze message/exit node has no outputs to read" },
    files: { none: "a Coze message/exit node has no outputs to read" },
  },
};

/** Error outputs a Dify `error_strategy` adds, and where Coze keeps them. */
const ERROR_OUTPUTS: Record<string, string | { none: string }> = {
  error_message: "errorBody.errorMessage",
  error_type: { none: "Coze reports an error code, not Dify's error type" },
};

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ExportCozeOptions {
  /**
   * Coze `modelType` ids (the target instance's model manager) keyed by `provider/model` or `model`.
   * Unlisted models get `defaultModelType`, and a note says the model must be picked in Coze.
   */
  modelTypes?: Record<string, number>;
  defaultModelType?: number;
  /** The node types to read the workflow against; default every node Weft defines. */
  nodeTypes?: NodeTypes;
}

export class ExportContext {
  readonly byId = new Map<string, WorkflowNode>();
  readonly cozeIds = new Map<string, string>();
  readonly notes: string[] = [];
  readonly nodeTypes: NodeTypes;
  private next = 100002;

  constructor(
    readonly workflow: Workflow,
    private readonly options: ExportCozeOptions = {},
  ) {
    this.nodeTypes = options.nodeTypes ?? nodeCatalogue;
    for (const n of workflow.nodes) this.byId.set(n.id, n);
  }

  modelFor(provider: string, name: string, node: WorkflowNode): { modelType: number; modelName: string } {
    const table = this.options.modelTypes ?? {};
    const hit = table[`${provider}/${name}`] ?? table[name];
    if (hit !== undefined) return { modelType: hit, modelName: name };
    const fallback = this.options.defaultModelType ?? 0;
    this.notes.push(
      `node ${node.id}: model ${provider ? `${provider}/` : ""}${name || "(none)"} has no Coze model id; modelType ${fallback} is written — choose the model in Coze`,
    );
    return { modelType: fallback, modelName: name };
  }

  /** A fresh 6-digit id (the Coze convention); 100001 and 900001 are the entry and exit. */
  freshId(): string {
    let id = String(this.next++);
    if (id === "900001") id = String(this.next++);
    return id;
  }

  assignId(weftId: string, cozeId?: string): string {
    const id = cozeId ?? this.freshId();
    this.cozeIds.set(weftId, id);
    return id;
  }

  cozeId(weftId: string): string {
    const id = this.cozeIds.get(weftId);
    if (!id) unsupported(`reference to node "${weftId}", which is not exported`);
    return id;
  }

  /** Is `inner` (transitively) inside container `outer`? */
  isInside(inner: WorkflowNode, outerId: string): boolean {
    let p = inner.parentId;
    while (p) {
      if (p === outerId) return true;
      p = this.byId.get(p)?.parentId;
    }
    return false;
  }

  /** Resolve `selector` as read by `reader` into a Coze ref; unsupported if Coze has no such value. */
  resolve(selector: readonly string[], reader: WorkflowNode): ResolvedRef {
    const shown = formatSelector(selector);
    const [head, name, ...rest] = selector;
    if (!head || !name) unsupported(`reference ${shown} names no output`);
    if (head === "sys" || (name.startsWith("sys.") && this.byId.get(head)?.type === "start")) {
      const sys = head === "sys" ? name : name.slice(4);
      if (sys === "query" && this.workflow.mode === "advanced-chat" && rest.length === 0) {
        return { content: { source: "block-output", blockID: ENTRY_ID, name: "USER_INPUT" }, type: "string" };
      }
      unsupported(`system variable sys.${sys} (${shown}) has no Coze equivalent`);
    }
    if (head === "env" || head === "conversation" || head === "rag") {
      unsupported(`${head} variables (${shown}) have no Coze equivalent in this exporter`);
    }
    const target = this.byId.get(head);
    if (!target) unsupported(`reference ${shown} names no node`);
    if (target.parentId && reader.id !== target.parentId && !this.isInside(reader, target.parentId)) {
      unsupported(
        `reference ${shown}: node "${head}" lives inside container "${target.parentId}", which Coze nodes outside it cannot read`,
      );
    }
    const blockID = this.cozeId(head);
    const desc = describeNode(target, this.nodeTypes);

    if (target.type === "iteration" && (reader.id === head || this.isInside(reader, head))) {
      if (name === "item") {
        const it = desc.config?.iterator_selector as string[] | undefined;
        const itType = it && it.length > 0 ? this.typeOf(it, target) : "any";
        return this.withPath(blockID, "item", rest, elementType(itType), shown);
      }
      if (name === "index") return { content: { source: "block-output", blockID, name: "index" }, type: "number" };
    }

    if (target.type === "iteration" && name === "output" && rest.length === 0 && !desc.config?.output_type) {
      // Without a declared output_type, the collected list holds the body output's type.
      const os = desc.config?.output_selector as string[] | undefined;
      const inner = os?.[0] ? this.byId.get(os[0]) : undefined;
      const t = inner && os ? this.typeOf(os, inner) : "any";
      return { content: { source: "block-output", blockID, name: "output" }, type: arrayOf(t) };
    }
    let cozeName: string = name;
    const mapped = OUTPUT_NAMES[target.type]?.[name] ?? ERROR_OUTPUTS[name];
    if (mapped !== undefined) {
      if (typeof mapped !== "string") unsupported(`${shown}: ${mapped.none}`);
      cozeName = mapped;
    }
    if (target.type === "variable-aggregator" && rest[0] === "output" && desc.outputs.some((o) => o.name === name)) {
      // Group mode: Dify's {{#agg.group.output#}} is Coze's group output `group`.
      const groups = (
        desc.config?.advanced_settings as { groups?: Array<{ group_name: string; output_type?: string }> } | undefined
      )?.groups;
      const g = groups?.find((x) => x.group_name === name);
      return this.withPath(blockID, name, rest.slice(1), normaliseType(g?.output_type), shown);
    }
    const decl = desc.outputs.find((o) => o.name === name);
    if (!decl && desc.known) unsupported(`reference ${shown}: node "${head}" has no output "${name}"`);
    return this.withPath(blockID, cozeName, rest, decl?.type ?? "any", shown);
  }

  private withPath(blockID: string, name: string, rest: string[], type: ValueType, shown: string): ResolvedRef {
    for (const seg of rest)
      if (!IDENT.test(seg)) unsupported(`reference ${shown}: path segment "${seg}" is not a plain name`);
    // Coze writes nested fields as a dotted name (see corpus batch/node_batches.json).
    const full = [name, ...rest].join(".");
    return { content: { source: "block-output", blockID, name: full }, type: rest.length > 0 ? "any" : type };
  }

  typeOf(selector: readonly string[], reader: WorkflowNode): ValueType {
    try {
      return this.resolve(selector, reader).type;
    } catch {
      return "any";
    }
  }

  /**
   * A BlockInput that references `selector`. `lenient` readers (template variables) accept a value
   * of unknown type as `lenient`, since Coze renders any value into text; others need a real type.
   */
  refInput(
    selector: readonly string[],
    reader: WorkflowNode,
    lenient?: CozeValueType,
    typeHint?: ValueType,
  ): CozeBlockInput {
    const r = this.resolve(selector, reader);
    const t = r.type === "any" && typeHint ? typeHint : r.type;
    const typed = cozeTypeOf(t, formatSelector(selector), lenient);
    const rawMeta = rawMetaOf(t);
    return {
      type: typed.type,
      ...(typed.assistType ? { assistType: typed.assistType } : {}),
      ...(typed.schema && typed.type === "list" ? { schema: typed.schema } : {}),
      value: { type: "ref", content: r.content, ...(rawMeta ? { rawMeta } : {}) },
    };
  }
}

export function literal(type: CozeValueType, content: unknown, rawType?: number): CozeBlockInput {
  return { type, value: { type: "literal", content, ...(rawType ? { rawMeta: { type: rawType } } : {}) } };
}

export function stringLiteral(content: string): CozeBlockInput {
  return literal("string", content, 1);
}

/**
 * The `inputParameters` of one Coze node, built while its templates are converted: each distinct
 * Weft selector becomes one named parameter, used in the template as `{{name}}`.
 */
export class ParamBuilder {
  readonly params: CozeParam[] = [];
  private readonly bySelector = new Map<string, string>();
  private readonly names = new Set<string>();

  constructor(
    private readonly ctx: ExportContext,
    private readonly reader: WorkflowNode,
  ) {}

  /** Reserve a name the node uses for something else (so generated names avoid it). */
  reserve(name: string): void {
    this.names.add(name);
  }

  private fresh(base: string): string {
    let b = base.replace(/[^A-Za-z0-9_]/g, "_");
    if (!/^[A-Za-z_]/.test(b)) b = `v_${b}`;
    let name = b;
    for (let i = 2; this.names.has(name); i++) name = `${b}_${i}`;
    this.names.add(name);
    return name;
  }

  /** Bind `selector` and give its parameter name. */
  bind(selector: readonly string[], opts: { name?: string; lenient?: CozeValueType } = {}): string {
    const key = selector.join("\u0000");
    const hit = this.bySelector.get(key);
    if (hit) return hit;
    const input = this.ctx.refInput(selector, this.reader, opts.lenient);
    const name =
      opts.name && !this.names.has(opts.name) && IDENT.test(opts.name)
        ? opts.name
        : this.fresh(opts.name ?? selector[selector.length - 1] ?? "v");
    this.names.add(name);
    this.bySelector.set(key, name);
    this.params.push({ name, input });
    return name;
  }

  /**
   * Convert Dify template text (`{{#node.field#}}`) into Coze's `{{name}}` form. `extra` handles
   * special references (the LLM's `{{#context#}}`). Text that already looks like a Coze variable
   * would be read as one by Coze, so it is refused rather than silently changing meaning.
   */
  template(text: string, field: string, extra?: (raw: string) => string | undefined): string {
    const cozeVar = /\{\{\s*[A-Za-z_][\w.]*\s*\}\}/;
    const withoutRefs = text.replace(new RegExp(TEMPLATE_REF_SOURCE, "g"), "").replace(/\{\{#context#\}\}/g, "");
    if (cozeVar.test(withoutRefs)) {
      unsupported(
        `${field}: the text contains "${withoutRefs.match(cozeVar)?.[0]}", which Coze would read as a variable`,
      );
    }
    let out = replaceTemplateRefs(text, (sel) => `{{${this.bind(sel, { lenient: "string" })}}}`);
    // Only LLM prompts give {{#context#}} a meaning; elsewhere Dify prints it as text, and so does Coze.
    const sub = out.includes("{{#context#}}") ? extra?.("{{#context#}}") : undefined;
    if (sub !== undefined) out = out.split("{{#context#}}").join(sub);
    return out;
  }
}
