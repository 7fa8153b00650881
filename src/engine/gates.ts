/**
 * Gates: constraints on a produced artifact. A failing gate rejects the attempt and the node is
 * retried with the gate's message as feedback (the artifact-driven compilation runtime relies on it).
 */
export interface Gate {
  output: string;
  check: "not_empty" | "regex" | "json_schema" | "max_length" | "min_length" | "one_of";
  value?: unknown;
  message?: string;
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v as object).length === 0;
  return false;
}

function lengthOf(v: unknown): number {
  if (typeof v === "string" || Array.isArray(v)) return v.length;
  return JSON.stringify(v ?? "").length;
}

function typeMatches(v: unknown, t: unknown): boolean {
  switch (t) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    case "integer":
      return Number.isInteger(v);
    case "boolean":
      return typeof v === "boolean";
    case "array":
      return Array.isArray(v);
    case "object":
      return !!v && typeof v === "object" && !Array.isArray(v);
    case "null":
      return v === null;
    default:
      return true;
  }
}

/** A small JSON-Schema subset (type, required, properties, items, enum) — enough for artifact gates. */
export function schemaErrors(v: unknown, schema: any, path = "$"): string[] {
  if (!schema || typeof schema !== "object") return [];
  const errs: string[] = [];
  if (
    schema.type &&
    !(Array.isArray(schema.type) ? schema.type.some((t: unknown) => typeMatches(v, t)) : typeMatches(v, schema.type))
  ) {
    return [`${path} should be ${JSON.stringify(schema.type)}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(`${path} should be one of ${JSON.stringify(schema.enum)}`);
  }
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const obj = v as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in obj)) errs.push(`${path}.${k} is required`);
    for (const [k, sub] of Object.entries(schema.properties ?? {}))
      if (k in obj) errs.push(...schemaErrors(obj[k], sub, `${path}.${k}`));
  }
  if (Array.isArray(v) && schema.items)
    v.forEach((x, i) => {
      errs.push(...schemaErrors(x, schema.items, `${path}[${i}]`));
    });
  return errs;
}

/** Returns the failure message, or undefined when the gate passes. */
export function checkGate(gate: Gate, outputs: Record<string, unknown>): string | undefined {
  const v = outputs[gate.output];
  const say = (why: string) => gate.message ?? `output "${gate.output}" ${why}`;
  switch (gate.check) {
    case "not_empty":
      return isEmpty(v) ? say("must not be empty") : undefined;
    case "regex": {
      const re = new RegExp(String(gate.value ?? ""));
      return typeof v === "string" && re.test(v) ? undefined : say(`must match /${String(gate.value)}/`);
    }
    case "max_length":
      return lengthOf(v) <= Number(gate.value)
        ? undefined
        : say(`must be at most ${String(gate.value)} long (is ${lengthOf(v)})`);
    case "min_length":
      return lengthOf(v) >= Number(gate.value)
        ? undefined
        : say(`must be at least ${String(gate.value)} long (is ${lengthOf(v)})`);
    case "one_of":
      return Array.isArray(gate.value) && gate.value.some((x) => JSON.stringify(x) === JSON.stringify(v))
        ? undefined
        : say(`must be one of ${JSON.stringify(gate.value)}`);
    case "json_schema": {
      let val = v;
      if (typeof v === "string") {
        try {
          val = JSON.parse(v);
        } catch {
          return say("must be valid JSON");
        }
      }
      const errs = schemaErrors(val, gate.value);
      return errs.length ? say(`does not match its schema: ${errs.slice(0, 5).join("; ")}`) : undefined;
    }
  }
}

/** The gates a node's config declares. */
export function gatesOf(cfg: Record<string, unknown>): Gate[] {
  return Array.isArray(cfg.gates) ? (cfg.gates as Gate[]) : [];
}

/** The messages of every gate the outputs fail; empty when all pass. */
export function gateRejections(gates: Gate[], outputs: Record<string, unknown>): string[] {
  return gates.map((g) => checkGate(g, outputs)).filter((m): m is string => !!m);
}
