import type { JsonSchema } from "../types";

/** What input a schema asks for: the form picks a widget per kind. */
export type Kind =
  | { kind: "selector" }
  | { kind: "enum"; options: unknown[] }
  | { kind: "string" | "number" | "integer" | "boolean" }
  | { kind: "object"; schema: JsonSchema }
  | { kind: "list"; item: JsonSchema }
  | { kind: "json" };

const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type);

/** A selector in the node schemas is an array of string-or-number parts (numbers are stringified). */
function isSelector(s: JsonSchema): boolean {
  if (typeOf(s) !== "array" || !s.items) return false;
  const alts = s.items.anyOf ?? s.items.oneOf;
  return !!alts && alts.length === 2 && alts.some((a) => a.type === "string") && alts.some((a) => a.type === "number");
}

export function kindOf(s: JsonSchema | undefined): Kind {
  if (!s) return { kind: "json" };
  const alts = (s.anyOf ?? s.oneOf)?.filter((a) => a.type !== "null");
  if (alts && alts.length === 1) return kindOf(alts[0]);
  if (alts && alts.length > 1) {
    if (alts.every((a) => a.const !== undefined)) return { kind: "enum", options: alts.map((a) => a.const) };
    if (alts.every((a) => a.type === "string" || a.type === "number" || a.type === "integer"))
      return { kind: "string" };
    return { kind: "json" };
  }
  if (isSelector(s)) return { kind: "selector" };
  if (s.enum) return { kind: "enum", options: s.enum.filter((x) => x !== null) };
  const t = typeOf(s);
  if (t === "string" || t === "number" || t === "integer" || t === "boolean") return { kind: t };
  if (t === "object" && s.properties && Object.keys(s.properties).length > 0) return { kind: "object", schema: s };
  if (t === "array" && s.items && (kindOf(s.items).kind !== "json" || s.items.type === "object"))
    return { kind: "list", item: s.items };
  return { kind: "json" };
}

const LABELS: Record<string, string> = {
  value_selector: "Variable",
  variable_selector: "Variable",
  query_variable_selector: "Query",
  iterator_selector: "Input list",
  output_selector: "Output",
  dataset_ids: "Knowledge bases",
  code_language: "Language",
  error_strategy: "On error",
  default_value: "Default values",
  retry_config: "Retry",
  timeout_seconds: "Timeout (s)",
  desc: "Description",
  url: "URL",
  ssl_verify: "Verify SSL",
};

/** A field name as a person reads it: `query_variable_selector` → "Query", `max_length` → "Max length". */
export function fieldLabel(name: string): string {
  if (LABELS[name]) return LABELS[name]!;
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
