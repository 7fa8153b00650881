/**
 * The compact shorthand of each node type, both directions in one place: `project` writes a Dify config
 * as the compact `param` models read, `convert` reads a `param` back into a Dify config. A config that
 * a shorthand cannot show faithfully (`fits` false, or one that does not read back) is shown in the
 * `dify` form instead: `{"dify": <the config itself>}`.
 *
 * `convert` builds only what the shorthand says; fields it does not express are left to the defaults
 * (a new node) or to the base node's residue (an edit, see src/authoring/edit/merge.ts).
 */
import { describeValue, isPlainObject, type JsonObject, scalarText, setOwn } from "../../util/json.js";
import { own } from "../../util/own.js";
import type { Converter, ModelChoice } from "./convert.js";
import type { Projector } from "./projector.js";
import { START_TYPES, TOOL_ALIASES } from "./vocabulary.js";

export interface Converted {
  config: JsonObject;
  /** Branch handles in compact port order (if-else cases then else; classifier classes). */
  ports?: string[];
}

export interface Shorthand {
  /** The registry type the compact type becomes (tool aliases become `tool`). */
  registryType: string;
  fits?(config: JsonObject): boolean;
  project(config: JsonObject, p: Projector): JsonObject;
  convert(param: JsonObject, c: Converter, id: string): Converted;
}

/** Dify start input types → compact value types. */
const START_BACK: Record<string, string> = {
  paragraph: "string",
  "text-input": "string",
  select: "string",
  number: "number",
  checkbox: "boolean",
  file: "file",
  "file-list": "array[file]",
  json_object: "object",
};

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objects = (v: unknown): JsonObject[] => list(v).filter(isPlainObject);

/** The Dify model object a param names, the configured one, or an empty one the analyser warns about. */
function modelOf(c: Converter, v: unknown, id: string, fallback: ModelChoice | undefined): JsonObject {
  if (v !== undefined) {
    if (isPlainObject(v) && typeof v.provider === "string" && typeof v.name === "string") {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) setOwn(out, k, x);
      if (!isPlainObject(out.completion_params)) out.completion_params = {};
      if (typeof out.mode !== "string") out.mode = "chat";
      return out;
    }
    c.error(
      "compact.bad_param",
      `model must be {provider, name, completion_params?}, got ${describeValue(v)}`,
      id,
      "model",
    );
  }
  return { provider: fallback?.provider ?? "", name: fallback?.name ?? "", mode: "chat", completion_params: {} };
}

function withModel(param: JsonObject, config: JsonObject): JsonObject {
  return config.model !== undefined ? { ...param, model: config.model } : param;
}

const plainMessages = (pt: unknown): pt is JsonObject[] =>
  Array.isArray(pt) &&
  pt.every((m) => isPlainObject(m) && typeof m.text === "string" && m.edition_type !== "jinja2") &&
  ["user", "system,user", "system"].includes(pt.map((m) => (m as JsonObject).role ?? "user").join(","));

const start: Shorthand = {
  registryType: "start",
  fits: (c) => objects(c.variables).length === list(c.variables).length,
  project: (c) => ({
    variables: objects(c.variables).map((v) => [v.variable, own(START_BACK, v.type) ?? "string"]),
  }),
  convert(p, c, id) {
    const variables = c.list(p.variables, id, "variables").flatMap((v, i): JsonObject[] => {
      if (!Array.isArray(v) || typeof v[0] !== "string" || v[0] === "") {
        c.error(
          "compact.bad_param",
          `variables[${i}] must be [name, type], got ${describeValue(v)}`,
          id,
          `variables[${i}]`,
        );
        return [];
      }
      const t = v[1] === undefined ? "string" : scalarText(v[1]);
      const dify = own(START_TYPES, t);
      if (!dify && c.opts.upstreamConverter) {
        // nodes/dify/basic/start.py writes any other type as given, with a text input's max_length.
        c.warn(
          "compact.unknown_start_type",
          `input "${v[0]}" has type ${describeValue(v[1])}, which Dify's start node does not have; written as given, as Chat2Workflow's converter does (the run will refuse it)`,
          id,
          `variables[${i}]`,
        );
        return [{ variable: v[0], label: v[0], type: t, required: false, max_length: 32768 }];
      }
      if (!dify) {
        c.error(
          "compact.bad_start_type",
          `input "${v[0]}" has type ${describeValue(v[1])}; start inputs can be ${Object.keys(START_TYPES).join(", ")}`,
          id,
          `variables[${i}]`,
        );
        return [];
      }
      return [
        {
          variable: v[0],
          label: v[0],
          type: dify,
          required: false,
          ...(dify === "paragraph" ? { max_length: 32768 } : {}),
        },
      ];
    });
    return { config: { variables } };
  },
};

const end: Shorthand = {
  registryType: "end",
  fits: (c) => objects(c.outputs).length === list(c.outputs).length,
  project: (c, p) => ({ outputs: objects(c.outputs).map((o) => [o.variable, p.ref(o.value_selector)]) }),
  convert(p, c, id) {
    const outputs = c.list(p.outputs, id, "outputs").flatMap((o, i) => {
      if (!Array.isArray(o) || typeof o[0] !== "string") {
        c.error(
          "compact.bad_param",
          `outputs[${i}] must be [name, [variable, node_id]], got ${describeValue(o)}`,
          id,
          `outputs[${i}]`,
        );
        return [];
      }
      const sel = c.ref(o[1], id, `outputs[${i}]`);
      return sel ? [{ variable: o[0], value_selector: sel }] : [];
    });
    return { config: { outputs } };
  },
};

const answer: Shorthand = {
  registryType: "answer",
  fits: (c) => typeof c.answer === "string",
  project: (c, p) => ({ answer: p.text(c.answer) }),
  convert: (p, c, id) => ({ config: { answer: c.text(p.answer, id, "answer") } }),
};

const llm: Shorthand = {
  registryType: "llm",
  fits: (c) => plainMessages(c.prompt_template),
  project(c, p) {
    const msgs = c.prompt_template as JsonObject[];
    const sys = msgs.find((m) => m.role === "system");
    const user = msgs.find((m) => m.role !== "system");
    return withModel({ ...(sys ? { system: p.text(sys.text) } : {}), ...(user ? { user: p.text(user.text) } : {}) }, c);
  },
  // A message for each prompt given (a system prompt alone is a valid Dify LLM node).
  convert(p, c, id) {
    const hasSystem = Object.hasOwn(p, "system");
    const prompt_template = [
      ...(hasSystem ? [{ role: "system", text: c.text(p.system, id, "system") }] : []),
      ...(Object.hasOwn(p, "user") || !hasSystem ? [{ role: "user", text: c.text(p.user, id, "user") }] : []),
    ];
    return {
      config: {
        model: modelOf(c, p.model, id, c.opts.llmModel),
        prompt_template,
        context: { enabled: false, variable_selector: [] },
        vision: { enabled: false },
      },
    };
  },
};

const questionClassifier: Shorthand = {
  registryType: "question-classifier",
  fits: (c) => objects(c.classes).every((k) => typeof k.name === "string"),
  project: (c, p) =>
    withModel(
      {
        query_variable_selector: p.ref(c.query_variable_selector),
        classes: objects(c.classes).map((k) => k.name),
        instruction: p.text(c.instruction ?? ""),
      },
      c,
    ),
  convert(p, c, id) {
    const classes = c.list(p.classes, id, "classes").map((name, i) => ({
      id: String(i + 1),
      name: c.name(name, id, `classes[${i}]`),
    }));
    return {
      config: {
        query_variable_selector: c.ref(p.query_variable_selector, id, "query_variable_selector") ?? [],
        classes,
        instruction: c.text(p.instruction, id, "instruction"),
        model: modelOf(c, p.model, id, c.opts.structuredModel ?? c.opts.llmModel),
      },
      ports: classes.map((k) => k.id),
    };
  },
};

const CODE_LANGUAGES = ["python3", "javascript"];

const code: Shorthand = {
  registryType: "code",
  fits: (c) =>
    typeof c.code === "string" &&
    isPlainObject(c.outputs ?? {}) &&
    objects(c.variables).length === list(c.variables).length,
  project: (c, p) => ({
    variables: p.bindings(c.variables),
    outputs: Object.entries(isPlainObject(c.outputs) ? c.outputs : {}).map(([k, v]) => [
      k,
      isPlainObject(v) ? (v.type ?? "string") : "string",
    ]),
    code: c.code,
    // Shown only when it is not the shorthand's default, so a JavaScript node reads back as JavaScript.
    ...(c.code_language !== undefined && c.code_language !== "python3" ? { code_language: c.code_language } : {}),
  }),
  convert(p, c, id) {
    const outputs: JsonObject = {};
    c.list(p.outputs, id, "outputs").forEach((o, i) => {
      const type = Array.isArray(o) ? (o[1] === undefined ? "string" : scalarText(o[1])) : undefined;
      if (!Array.isArray(o) || typeof o[0] !== "string" || o[0] === "" || type === undefined)
        c.error(
          "compact.bad_param",
          `outputs[${i}] must be [name, type], got ${describeValue(o)}`,
          id,
          `outputs[${i}]`,
        );
      else setOwn(outputs, o[0], { type, children: null });
    });
    const lang = p.code_language === undefined ? "python3" : p.code_language;
    if (typeof lang !== "string" || !CODE_LANGUAGES.includes(lang))
      c.error(
        "compact.bad_param",
        `code_language must be python3 or javascript, got ${describeValue(lang)}`,
        id,
        "code_language",
      );
    if (p.code !== undefined && typeof p.code !== "string")
      c.error("compact.bad_param", `code must be a string, got ${describeValue(p.code)}`, id, "code");
    return {
      config: {
        variables: c.bindings(p.variables, id, "variables"),
        code_language: typeof lang === "string" && CODE_LANGUAGES.includes(lang) ? lang : "python3",
        code: typeof p.code === "string" ? p.code : "",
        outputs,
      },
    };
  },
};

const documentExtractor: Shorthand = {
  registryType: "document-extractor",
  project: (c, p) => ({ variable_selector: p.ref(c.variable_selector) }),
  convert: (p, c, id) => ({
    config: { variable_selector: c.ref(p.variable_selector, id, "variable_selector") ?? [], is_array_file: false },
  }),
};

const URL_REF = /^\{\{#([A-Za-z0-9_]+)\.([A-Za-z0-9_.]+)#\}\}$/;

const httpRequest: Shorthand = {
  registryType: "http-request",
  // The shorthand's url is one variable; a literal or composed URL is shown in the dify form.
  fits: (c) => typeof c.url === "string" && URL_REF.test(c.url),
  project(c, p) {
    const m = URL_REF.exec(c.url as string)!;
    return { url: p.ref([m[1]!, ...m[2]!.split(".")]) };
  },
  convert(p, c, id) {
    const sel = c.ref(p.url, id, "url");
    return {
      config: {
        method: "get",
        url: sel ? `{{#${sel.join(".")}#}}` : "",
        authorization: { type: "no-auth", config: null },
        headers: "",
        params: "",
        body: { type: "none", data: [] },
        timeout: { max_connect_timeout: 0, max_read_timeout: 0, max_write_timeout: 0 },
        retry_config: { retry_enabled: true, max_retries: 3, retry_interval: 100 },
      },
    };
  },
};

const ifElse: Shorthand = {
  registryType: "if-else",
  // The legacy single-case layout (top-level `conditions`) is shown as it is, in the dify form.
  fits: (c) =>
    Array.isArray(c.cases) &&
    objects(c.cases).every((k) => Array.isArray(k.conditions) && objects(k.conditions).length === k.conditions.length),
  project: (c, p) => ({
    cases: objects(c.cases).map((k) => [
      k.logical_operator ?? "and",
      objects(k.conditions).map((cond) => [
        p.ref(cond.variable_selector),
        cond.comparison_operator,
        ...(cond.value !== undefined ? [p.text(cond.value)] : []),
      ]),
    ]),
  }),
  convert(p, c, id) {
    const cases = c.list(p.cases, id, "cases").flatMap((k, i) => {
      if (!Array.isArray(k) || k.length !== 2 || !Array.isArray(k[1])) {
        c.error(
          "compact.bad_param",
          `cases[${i}] must be [logical_operator, [conditions...]], got ${describeValue(k)}`,
          id,
          `cases[${i}]`,
        );
        return [];
      }
      const conditions = (k[1] as unknown[]).flatMap((cond, j) => {
        const f = `cases[${i}].conditions[${j}]`;
        if (!Array.isArray(cond) || cond.length < 2) {
          c.error(
            "compact.bad_param",
            `${f} must be [[variable, node_id], operator, value?], got ${describeValue(cond)}`,
            id,
            f,
          );
          return [];
        }
        const sel = c.ref(cond[0], id, f);
        const op = c.name(cond[1], id, `${f}.operator`);
        if (!sel) return [];
        const value = cond.length > 2 ? (typeof cond[2] === "string" ? c.text(cond[2], id, f) : cond[2]) : undefined;
        return [{ variable_selector: sel, comparison_operator: op, ...(value !== undefined ? { value } : {}) }];
      });
      return [
        { case_id: i === 0 ? "true" : `case_${i + 1}`, logical_operator: k[0] === "or" ? "or" : "and", conditions },
      ];
    });
    return { config: { cases }, ports: [...cases.map((k) => k.case_id), "false"] };
  },
};

const listOperator: Shorthand = {
  registryType: "list-operator",
  // Only read: a stored list operator is shown in the dify form (it may combine several operations).
  fits: () => false,
  project: () => ({}),
  convert(p, c, id) {
    const op = c.list(p.operator, id, "operator");
    const kind = op[0];
    const cfg: JsonObject = {
      variable: c.ref(p.variable, id, "variable") ?? [],
      filter_by: { enabled: false, conditions: [] },
      extract_by: { enabled: false, serial: "1" },
      order_by: { enabled: false, key: "", value: "asc" },
      limit: { enabled: false, size: 10 },
    };
    if (kind === "filter_by")
      cfg.filter_by = {
        enabled: true,
        conditions: [{ key: "", comparison_operator: c.name(op[1], id, "operator[1]", "contains"), value: op[2] }],
      };
    else if (kind === "extract_by") cfg.extract_by = { enabled: true, serial: c.name(op[1], id, "operator[1]", "1") };
    else if (kind === "order_by") cfg.order_by = { enabled: true, key: "", value: op[1] === "desc" ? "desc" : "asc" };
    else if (kind === "limit") {
      const size = op[1] === undefined ? 10 : Number(scalarText(op[1]));
      if (!Number.isInteger(size) || size < 1)
        c.error(
          "compact.bad_param",
          `limit size must be a positive integer, got ${describeValue(op[1])}`,
          id,
          "operator[1]",
        );
      cfg.limit = { enabled: true, size: Number.isInteger(size) && size > 0 ? size : 10 };
    } else
      c.error(
        "compact.bad_param",
        `operator kind ${describeValue(kind)} is not one of filter_by, extract_by, order_by, limit`,
        id,
        "operator",
      );
    return { config: cfg };
  },
};

const parameterExtractor: Shorthand = {
  registryType: "parameter-extractor",
  fits: (c) => objects(c.parameters).length === list(c.parameters).length,
  project: (c, p) =>
    withModel(
      {
        query: p.ref(c.query),
        parameters: objects(c.parameters).map((q) => [q.description ?? "", q.name, q.type]),
        instruction: p.text(c.instruction ?? ""),
      },
      c,
    ),
  convert(p, c, id) {
    const parameters = c.list(p.parameters, id, "parameters").flatMap((q, i) => {
      const f = `parameters[${i}]`;
      if (!Array.isArray(q) || q.length < 3) {
        c.error("compact.bad_param", `${f} must be [description, name, type], got ${describeValue(q)}`, id, f);
        return [];
      }
      return [
        {
          description: c.name(q[0], id, `${f}[0]`),
          name: c.name(q[1], id, `${f}[1]`),
          type: c.name(q[2], id, `${f}[2]`),
          required: true,
        },
      ];
    });
    return {
      config: {
        query: c.ref(p.query, id, "query") ?? [],
        parameters,
        instruction: c.text(p.instruction, id, "instruction"),
        reasoning_mode: "prompt",
        model: modelOf(c, p.model, id, c.opts.structuredModel ?? c.opts.llmModel),
      },
    };
  },
};

const templateTransform: Shorthand = {
  registryType: "template-transform",
  fits: (c) => typeof c.template === "string" && objects(c.variables).length === list(c.variables).length,
  project: (c, p) => ({ variables: p.bindings(c.variables), template: c.template }),
  convert(p, c, id) {
    if (p.template !== undefined && typeof p.template !== "string")
      c.error("compact.bad_param", `template must be a string, got ${describeValue(p.template)}`, id, "template");
    return {
      config: {
        variables: c.bindings(p.variables, id, "variables"),
        template: typeof p.template === "string" ? p.template : "",
      },
    };
  },
};

const variableAggregator: Shorthand = {
  registryType: "variable-aggregator",
  fits: (c) => !(isPlainObject(c.advanced_settings) && c.advanced_settings.group_enabled),
  project: (c, p) => ({ variables: list(c.variables).map((v) => p.ref(v)) }),
  convert: (p, c, id) => ({
    config: {
      variables: c.list(p.variables, id, "variables").flatMap((v, i) => {
        const sel = c.ref(v, id, `variables[${i}]`);
        return sel ? [sel] : [];
      }),
    },
  }),
};

const iteration: Shorthand = {
  registryType: "iteration",
  project: (c, p) => ({ iterator_selector: p.ref(c.iterator_selector), output_selector: p.ref(c.output_selector) }),
  // output_selector may point into the body, listed later: the graph pass resolves (and checks) it.
  convert: (p, c, id) => ({
    config: {
      iterator_selector: c.ref(p.iterator_selector, id, "iterator_selector") ?? [],
      output_selector: c.peekRef(p.output_selector) ?? [],
      is_parallel: false,
      parallel_nums: 10,
      error_handle_mode: "terminated",
      flatten_output: true,
    },
  }),
};

const iterationStart: Shorthand = {
  registryType: "iteration-start",
  project: () => ({}),
  convert: () => ({ config: {} }),
};

const SHORTHANDS: Record<string, Shorthand> = {
  start,
  end,
  answer,
  llm,
  "question-classifier": questionClassifier,
  code,
  "document-extractor": documentExtractor,
  "http-request": httpRequest,
  "if-else": ifElse,
  "list-operator": listOperator,
  "parameter-extractor": parameterExtractor,
  "template-transform": templateTransform,
  "variable-aggregator": variableAggregator,
  iteration,
  "iteration-start": iterationStart,
};

/** A tool node built from a compact alias (`echarts`, `google-search`...). */
function aliasShorthand(type: string): Shorthand | undefined {
  const alias = own(TOOL_ALIASES, type);
  if (!alias) return undefined;
  return {
    registryType: "tool",
    fits: (c) => c.compact_type === type && isPlainObject(c.tool_parameters),
    project(c, p) {
      const params = Object.fromEntries(
        Object.entries(c.tool_parameters as JsonObject).map(([k, v]) => [k, p.text(isPlainObject(v) ? v.value : v)]),
      );
      return alias.project ? alias.project(params, c) : params;
    },
    convert(p, c, id) {
      const tool_parameters: JsonObject = {};
      for (const [k, v] of Object.entries(alias.params(p))) {
        if (v === undefined || v === null) c.error("compact.missing_param", `${type} needs a "${k}" text`, id, k);
        setOwn(tool_parameters, k, { type: "mixed", value: c.text(v, id, k) });
      }
      const tool_configurations: JsonObject = {};
      for (const [k, v] of Object.entries(alias.configurations ?? {}))
        setOwn(tool_configurations, k, { type: "constant", value: v });
      const toolName = alias.toolName(p);
      return {
        config: {
          provider_id: alias.providerId,
          provider_type: "builtin",
          provider_name: alias.providerName,
          tool_name: toolName,
          tool_label: toolName,
          tool_node_version: "2",
          tool_parameters,
          tool_configurations,
          compact_type: type,
        },
      };
    },
  };
}

export function shorthandFor(compactType: string): Shorthand | undefined {
  return own(SHORTHANDS, compactType) ?? aliasShorthand(compactType);
}

/** The compact type a stored node is shown as: its alias for tool nodes built from one, else its type. */
export function compactTypeOf(type: string, config: JsonObject): string {
  if (type === "tool" && typeof config.compact_type === "string" && own(TOOL_ALIASES, config.compact_type))
    return config.compact_type;
  return type;
}
