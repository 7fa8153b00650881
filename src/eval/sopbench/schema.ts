import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { ToolSpec } from "../../ir/services.js";
import { SopBenchError } from "./errors.js";

/**
 * Argument validation against the toolspec JSON Schemas.
 * - "strict": the whole schema (types, required, additionalProperties, enum, pattern, length, range, format).
 * - "structural" (the environment's default): types, required and additionalProperties only. The corpus's own
 *   values break many value constraints (patient ids "P100012" vs `^P[0-9]{9}$`, dates "6/1/23" vs
 *   `format: date`, 7-digit bank accounts vs `minLength: 8`, video objects such as "curbs" outside an enum),
 *   and the original never enforced schemas (Bedrock only shows them to the model), so enforcing them would
 *   make correct calls fail.
 * - "off": no validation (the original behaviour).
 */
export type ValidationMode = "strict" | "structural" | "off";

export interface SchemaIssue {
  path: string;
  reason: string;
}

// ajv-formats is CommonJS: under NodeNext its default import may be the module object or the function.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);
const VALUE_KEYWORDS = new Set([
  "enum",
  "const",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "multipleOf",
]);

function stripValueKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripValueKeywords);
  if (schema && typeof schema === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) {
      if (VALUE_KEYWORDS.has(k)) continue;
      // Inside `properties` the keys are field names, not keywords: keep them all.
      out[k] =
        k === "properties" && v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, stripValueKeywords(s)]))
          : stripValueKeywords(v);
    }
    return out;
  }
  return schema;
}

function describe(e: ErrorObject): SchemaIssue {
  const path = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "";
  if (e.keyword === "required") return { path: String(e.params.missingProperty), reason: "is required" };
  if (e.keyword === "additionalProperties")
    return { path: String(e.params.additionalProperty), reason: "is not a parameter of this tool" };
  if (e.keyword === "enum") return { path, reason: `must be one of ${JSON.stringify(e.params.allowedValues)}` };
  return { path: path || "(arguments)", reason: e.message ?? e.keyword };
}

export class ArgValidator {
  private readonly compiled = new Map<string, ValidateFunction>();
  constructor(
    specs: ToolSpec[],
    readonly mode: ValidationMode,
    coerce = false,
  ) {
    if (mode === "off") return;
    const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: coerce });
    if (mode === "strict") addFormats(ajv);
    for (const s of specs) {
      const schema = mode === "strict" ? s.parameters : (stripValueKeywords(s.parameters) as Record<string, unknown>);
      this.compiled.set(s.name, ajv.compile(schema));
    }
  }

  /** Throws sopbench.invalid_args naming every offending field; may coerce `args` in place when enabled. */
  check(domain: string, tool: string, args: Record<string, unknown>): void {
    const fn = this.compiled.get(tool);
    if (!fn) return;
    if (fn(args)) return;
    const issues = (fn.errors ?? []).map(describe);
    const text = issues.map((i) => `${i.path} ${i.reason}`).join("; ");
    throw new SopBenchError("sopbench.invalid_args", `Invalid arguments for ${tool}: ${text}`, {
      domain,
      tool,
      issues,
    });
  }
}
