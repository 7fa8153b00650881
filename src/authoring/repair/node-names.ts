import { own } from "../../util/own.js";

/** Node type strings of the compact vocabulary: display names and the aliases models write for them. */

export const DISPLAY: Record<string, string> = {
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

export const ALIASES: Record<string, string> = {
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
  const base = raw
    .replace(/\(.*?\)/g, "")
    .replace(/[×x]\s*\d+\b/gi, "")
    .replace(/\bnodes?\b/gi, "")
    .trim();
  const key = base.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (!key) return undefined;
  for (const t of Object.keys(DISPLAY)) if (t.replace(/[^a-z0-9]/g, "") === key) return t;
  return own(ALIASES, key);
}
