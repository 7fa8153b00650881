/**
 * Dify tool nodes hand every parameter over as text (mixed and constant parameters are rendered
 * templates). A configured tool declares its argument types in JSON Schema, so text is converted to what
 * the schema asks for: "5" → 5 for a number, "true" → true for a boolean, JSON text → the array or object.
 * A value that does not convert is passed as it is; the tool reports it.
 */
function typeOf(schema: unknown): string | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  const t = (schema as { type?: unknown }).type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return t.find((x) => x !== "null" && typeof x === "string");
  return undefined;
}

function convert(value: unknown, type: string | undefined): unknown {
  if (typeof value !== "string") return value;
  const s = value.trim();
  switch (type) {
    case "number":
    case "integer": {
      const n = s === "" ? Number.NaN : Number(s);
      return Number.isFinite(n) && (type === "number" || Number.isInteger(n)) ? n : value;
    }
    case "boolean":
      return s === "true" || s === "True" ? true : s === "false" || s === "False" ? false : value;
    case "array":
    case "object":
      try {
        const v = JSON.parse(s);
        return (type === "array" ? Array.isArray(v) : v && typeof v === "object" && !Array.isArray(v)) ? v : value;
      } catch {
        return value;
      }
    default:
      return value;
  }
}

export function coerceArgs(schema: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) out[k] = convert(v, typeOf(props[k]));
  return out;
}

/** Names of the required arguments of a JSON Schema. */
export function requiredOf(schema: Record<string, unknown>): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === "string") : [];
}
