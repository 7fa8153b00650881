/** Read-only helpers over a compact workflow (nodes_info/edges) shared by the structural repairs. */
export type CNode = { id: string; type: string; param: Record<string, unknown> };
export type Compact = { nodes_info: CNode[]; edges: unknown[] };

export const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

export function asCompact(v: unknown): Compact | undefined {
  if (!isObj(v) || !Array.isArray(v.nodes_info)) return undefined;
  const nodes = v.nodes_info.filter(
    (n): n is CNode => isObj(n) && (typeof n.id === "string" || typeof n.id === "number") && typeof n.type === "string",
  );
  return {
    nodes_info: nodes.map((n) => ({ ...n, id: String(n.id), param: isObj(n.param) ? n.param : {} })),
    edges: Array.isArray(v.edges) ? v.edges : [],
  };
}

export const TEXT_REF = /\{\{#\s*(['"]?)([^'".#{}]+)\1\.([A-Za-z0-9_.]+)\s*#\}\}/g;

/** Every node id a value references: `[var, id]` tuples whose id is known, and `{{#id.var#}}` text. */
export function referencedIds(value: unknown, known: Set<string>, out = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    for (const m of value.matchAll(TEXT_REF)) if (known.has(m[2]!.trim())) out.add(m[2]!.trim());
  } else if (Array.isArray(value)) {
    if (
      value.length === 2 &&
      typeof value[0] === "string" &&
      (typeof value[1] === "string" || typeof value[1] === "number") &&
      known.has(String(value[1]))
    ) {
      out.add(String(value[1]));
    } else for (const v of value) referencedIds(v, known, out);
  } else if (isObj(value)) for (const v of Object.values(value)) referencedIds(v, known, out);
  return out;
}

export function parentOf(id: string): string | undefined {
  const i = id.indexOf("-");
  return i > 0 ? id.slice(0, i) : undefined;
}

/** Output names a compact node publishes (what `[name, id]` may reference). */
export function compactOutputs(n: CNode): string[] {
  const p = n.param;
  const names = (list: unknown, idx: number) =>
    Array.isArray(list)
      ? list.flatMap((x) => (Array.isArray(x) && typeof x[idx] === "string" ? [x[idx] as string] : []))
      : [];
  switch (n.type) {
    case "start":
      return names(p.variables, 0);
    case "code":
      return names(p.outputs, 0);
    case "parameter-extractor":
      return names(p.parameters, 1);
    case "llm":
      return ["text"];
    case "template-transform":
    case "variable-aggregator":
      return ["output"];
    case "iteration":
      return ["output", "item", "index"];
    case "document-extractor":
      return ["text"];
    case "question-classifier":
      return ["class_name"];
    case "http-request":
      return ["body", "status_code", "headers", "files"];
    case "list-operator":
      return ["result", "first_record", "last_record"];
    case "echarts":
      return ["text"];
    case "google-search":
      return ["json"];
    case "tts":
    case "text2image":
    case "mermaid-converter":
    case "markdown-exporter":
      return ["files"];
    default:
      return [];
  }
}
