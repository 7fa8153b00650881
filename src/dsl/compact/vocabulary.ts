/**
 * The compact JSON vocabulary of generation models (Chat2Workflow's simplified format): node type
 * strings that are not Weft/Dify types map onto tool nodes with fixed providers.
 */
export interface ToolAlias {
  providerId: string;
  providerName: string;
  toolName: (param: Record<string, unknown>) => string;
  /** Compact param name → tool parameter name. */
  params: (param: Record<string, unknown>) => Record<string, unknown>;
  /** The inverse of `params`: tool parameter values (and the stored config) → compact param. */
  project?: (toolParams: Record<string, unknown>, config: Record<string, unknown>) => Record<string, unknown>;
  configurations?: Record<string, unknown>;
}

/** A name-like param as lower-case text; objects are shown as JSON, never converted by calling them. */
const lower = (v: unknown, fallback: string) => {
  const s =
    typeof v === "string"
      ? v
      : typeof v === "number"
        ? String(v)
        : v === undefined || v === null || v === ""
          ? ""
          : JSON.stringify(v);
  return (s || fallback).toLowerCase();
};

/**
 * A text param is passed on as written: the converter reports a missing one or one that is not a
 * string (models often write a `[var, id]` tuple there), instead of sending `'["text","3"]'` to the tool.
 */
const text = (v: unknown) => v;

export const TOOL_ALIASES: Record<string, ToolAlias> = {
  tts: {
    providerId: "audio",
    providerName: "audio",
    toolName: () => "tts",
    params: (p) => ({ text: text(p.text) }),
    configurations: { model: "langgenius/openai/openai#gpt-4o-mini-tts" },
  },
  text2image: {
    providerId: "sawyer-shi/tongyi_aigc/tongyi_aigc",
    providerName: "sawyer-shi/tongyi_aigc/tongyi_aigc",
    toolName: () => "z_image_text_2_image",
    params: (p) => ({ prompt: text(p.prompt) }),
    configurations: { model: "z-image-turbo", size: "1024*1024" },
  },
  "mermaid-converter": {
    providerId: "hjlarry/mermaid_converter/mermaid_converter",
    providerName: "hjlarry/mermaid_converter/mermaid_converter",
    toolName: () => "mermaid_converter",
    params: (p) => ({ mermaid_code: text(p.mermaid_code) }),
    configurations: { output_format: "png", theme: "default" },
  },
  "markdown-exporter": {
    providerId: "bowenliang123/md_exporter/md_exporter",
    providerName: "bowenliang123/md_exporter/md_exporter",
    toolName: (p) => `md_to_${lower(p.target_type, "md")}`,
    params: (p) => ({ md_text: text(p.md_text) }),
    project: (t, c) => ({ target_type: String(c.tool_name).replace(/^md_to_/, ""), md_text: t.md_text }),
  },
  "google-search": {
    providerId: "langgenius/google/google",
    providerName: "langgenius/google/google",
    toolName: () => "google_search",
    params: (p) => ({ query: text(p.query) }),
    configurations: { as_agent_tool: false },
  },
  echarts: {
    providerId: "langgenius/echarts/echarts",
    providerName: "langgenius/echarts/echarts",
    toolName: (p) => `${lower(p.chart_type, "bar")}_chart`,
    params: (p) => {
      const axis = text(p.x_axisORcategories);
      return lower(p.chart_type, "bar") === "pie"
        ? { data: text(p.data), title: text(p.chart_title), categories: axis }
        : { data: text(p.data), title: text(p.chart_title), x_axis: axis };
    },
    project: (t, c) => ({
      chart_type: String(c.tool_name).replace(/_chart$/, ""),
      chart_title: t.title,
      data: t.data,
      x_axisORcategories: t.x_axis ?? t.categories,
    }),
  },
};

/** Compact type strings that are Weft node types as they are. */
export const NATIVE_TYPES = new Set([
  "start",
  "end",
  "answer",
  "llm",
  "question-classifier",
  "code",
  "document-extractor",
  "http-request",
  "if-else",
  "list-operator",
  "parameter-extractor",
  "template-transform",
  "variable-aggregator",
  "iteration",
  "iteration-start",
]);

export const ALL_COMPACT_TYPES = [...NATIVE_TYPES, ...Object.keys(TOOL_ALIASES)];

/** Start variable types of the compact format → Dify start input types. */
export const START_TYPES: Record<string, string> = {
  string: "paragraph",
  number: "number",
  boolean: "checkbox",
  file: "file",
  "array[file]": "file-list",
  object: "json_object",
};

/**
 * The `param` shape of each compact type, as the model must write it. References are `[variable,
 * node_id]` (name first); text fields reference values as {{#'node_id'.variable#}}.
 */
export const COMPACT_PARAMS: Record<string, string> = {
  start: "variables: [[name, type]] with type one of string | number | boolean | file | array[file] | object",
  end: "outputs: [[output_name, [variable, node_id]]]",
  answer: "answer: text with {{#'id'.var#}} references (advanced-chat only)",
  llm: "system: text, user: text (files/images only in user), model?: {provider, name, completion_params} (leave out for the configured model)",
  "question-classifier":
    "query_variable_selector: [variable, node_id], classes: [name, ...] (≥ 2), instruction?: text, model?: as for llm. Port i = class i",
  code: "variables: [[name, [variable, node_id]]], outputs: [[name, type]], code: Python `def main(...)` returning a dict with exactly those outputs; code_language?: python3 (default) | javascript (`function main({...})` returning an object)",
  "document-extractor": "variable_selector: [variable, node_id] (a file or array[file])",
  "http-request": "url: [variable, node_id] (the URL comes from a variable)",
  "if-else":
    'cases: [[null|"and"|"or", [[[variable, node_id], operator, "value"?], ...]], ...]; port i = case i, port len(cases) = ELSE; values are strings',
  "list-operator":
    'variable: [variable, node_id], operator: ["filter_by", op, value] | ["extract_by", n] | ["order_by", "asc"|"desc"] | ["limit", n]',
  "parameter-extractor":
    "query: [variable, node_id], parameters: [[description, name, type]], instruction: text, model?: as for llm",
  "template-transform": "variables: [[name, [variable, node_id]]], template: Jinja2 text using {{ name }}",
  "variable-aggregator": "variables: [[variable, node_id], ...] (same type; the branch that ran wins)",
  iteration:
    'iterator_selector: [variable, node_id], output_selector: [variable, "<iteration_id>-k"]; children follow with ids "<iteration_id>-1" (iteration-start) .. "-n"',
  "iteration-start": "{} (id <iteration_id>-1; no edge between it and the iteration)",
  tts: "text: text → files (audio)",
  text2image: "prompt: text → files (image)",
  "mermaid-converter": "mermaid_code: text → files (png)",
  "markdown-exporter": "target_type: docx | pdf | html | md | pptx | png, md_text: text → files",
  "google-search": "query: text → json",
  echarts: 'chart_type: "line" | "bar" | "pie", chart_title: text, data: "1;2;3", x_axisORcategories: "a;b;c" → text',
};
