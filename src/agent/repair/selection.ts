import type { Compact } from "./compact-graph.js";
import type { RepairRecord } from "./types.js";

const DISPLAY: Record<string, string> = {
  start: "Start",
  end: "End",
  answer: "Answer",
  llm: "LLM",
  "question-classifier": "Question Classifier",
  code: "Code",
  "document-extractor": "Document Extractor",
  "http-request": "HTTP Request",
  "if-else": "If-Else",
  "list-operator": "List Operator",
  "parameter-extractor": "Parameter Extractor",
  "template-transform": "Template",
  "variable-aggregator": "Variable Aggregator",
  iteration: "Iteration",
  "iteration-start": "Iteration-Start",
  tts: "TTS",
  text2image: "Text2Image",
  "mermaid-converter": "Mermaid Converter",
  "markdown-exporter": "Markdown Exporter",
  "google-search": "Google Search",
  echarts: "Echarts",
};

const ALIASES: Record<string, string> = {
  template: "template-transform",
  templatetransform: "template-transform",
  ifelse: "if-else",
  if: "if-else",
  condition: "if-else",
  texttospeech: "tts",
  texttoimage: "text2image",
  imagegeneration: "text2image",
  googlesearch: "google-search",
  search: "google-search",
  mermaid: "mermaid-converter",
  markdownexporter: "markdown-exporter",
  mdexporter: "markdown-exporter",
  httprequest: "http-request",
  http: "http-request",
  questionclassifier: "question-classifier",
  classifier: "question-classifier",
  documentextractor: "document-extractor",
  parameterextractor: "parameter-extractor",
  variableaggregator: "variable-aggregator",
  aggregator: "variable-aggregator",
  listoperator: "list-operator",
  iterationstart: "iteration-start",
  chart: "echarts",
};

/** Map a free-text node name ("LLM (x3 inside iteration)", "Markdown Exporter") to a type string. */
export function normaliseNodeName(raw: string): string | undefined {
  const base = raw.replace(/\(.*?\)/g, "").replace(/[×x]\s*\d+\b/gi, "").replace(/\bnodes?\b/gi, "").trim();
  const key = base.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (!key) return undefined;
  for (const t of Object.keys(DISPLAY)) if (t.replace(/[^a-z0-9]/g, "") === key) return t;
  return ALIASES[key];
}

export function parseNodeSelection(text: string): string[] {
  const names = text
    .split(/[,\n;、]+/)
    .map((s) => s.replace(/^[\s\-*\d.]+/, "").trim())
    .filter(Boolean);
  return [...new Set(names.map(normaliseNodeName).filter((t): t is string => !!t))];
}

export function usedTypes(c: Compact): string[] {
  return [...new Set(c.nodes_info.map((n) => n.type))];
}

/** Rewrite <node_selection> to exactly the node types the workflow uses, recording what was added or removed. */
export function repairNodeSelection(selection: string | undefined, c: Compact): { selection: string; repairs: RepairRecord[] } {
  const declared = new Set(parseNodeSelection(selection ?? ""));
  const used = usedTypes(c);
  const missing = used.filter((t) => !declared.has(t));
  const extra = [...declared].filter((t) => !used.includes(t));
  const text = used.map((t) => DISPLAY[t] ?? t).join(", ");
  if (!missing.length && !extra.length) return { selection: selection ?? text, repairs: [] };
  const parts = [missing.length ? `added ${missing.join(", ")}` : "", extra.length ? `removed ${extra.join(", ")}` : ""].filter(Boolean);
  return { selection: text, repairs: [{ kind: "selection", detail: `node_selection ${parts.join("; ")}` }] };
}
