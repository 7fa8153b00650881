import { WeftError } from "../ir/errors.js";
import { JSON_VALUE_TYPES } from "../ir/types.js";

/**
 * Dify's validation of a code node's result (DIFY.md §2.8, code_node.py `_transform_result`):
 * declared outputs must all be present with their declared type, extra keys are an error, and
 * strings, numbers, arrays and nesting are bounded. Undeclared results (`outputs` null) are only
 * checked for the limits and for homogeneous arrays.
 */

export const CODE_OUTPUT_TYPES = JSON_VALUE_TYPES;
export type CodeOutputType = (typeof CODE_OUTPUT_TYPES)[number];

export interface CodeOutputDecl {
  type: string;
  children?: Record<string, CodeOutputDecl> | null;
}
export type CodeOutputSchema = Record<string, CodeOutputDecl>;

export interface CodeOutputLimits {
  maxStringLength: number;
  maxNumber: number;
  minNumber: number;
  maxPrecision: number;
  maxDepth: number;
  maxStringArrayLength: number;
  maxObjectArrayLength: number;
  maxNumberArrayLength: number;
  maxBooleanArrayLength: number;
}

/** Dify's current defaults (CODE_MAX_* settings). */
export const DIFY_OUTPUT_LIMITS: CodeOutputLimits = {
  maxStringLength: 400_000,
  // ±(2^63 - 1); as doubles these round to ±2^63, which the check treats as out of range.
  maxNumber: 2 ** 63 - 1,
  minNumber: -(2 ** 63 - 1),
  maxPrecision: 20,
  maxDepth: 5,
  maxStringArrayLength: 30,
  maxObjectArrayLength: 30,
  maxNumberArrayLength: 1000,
  maxBooleanArrayLength: 1000,
};

export type CodeOutputErrorCode =
  | "code.output_missing"
  | "code.output_extra"
  | "code.output_type"
  | "code.output_too_long"
  | "code.output_out_of_range"
  | "code.output_precision"
  | "code.output_too_deep"
  | "code.output_array_too_long"
  | "code.output_not_homogeneous"
  | "code.output_unsupported_type";

export class CodeOutputError extends WeftError {
  declare readonly code: CodeOutputErrorCode;
  constructor(
    code: CodeOutputErrorCode,
    message: string,
    readonly path: string,
  ) {
    super(code, message, { path });
  }
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const kindOf = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : typeof v === "number" && Number.isInteger(v)
        ? "integer"
        : typeof v;

/**
 * Returns the validated outputs (NUL bytes stripped, booleans turned into 0/1 where a number is
 * declared). `schema` null or undefined means the node declares no outputs.
 */
export function checkCodeOutputs(
  result: Obj,
  schema: CodeOutputSchema | null | undefined,
  limits: CodeOutputLimits = DIFY_OUTPUT_LIMITS,
): Obj {
  return new Checker(limits).object(result, schema ?? null, "", 1);
}

class Checker {
  constructor(private readonly lim: CodeOutputLimits) {}

  object(result: Obj, schema: CodeOutputSchema | null, prefix: string, depth: number): Obj {
    if (depth > this.lim.maxDepth) {
      throw new CodeOutputError(
        "code.output_too_deep",
        `output ${prefix || "result"} is nested deeper than ${this.lim.maxDepth} levels`,
        prefix,
      );
    }
    return schema === null ? this.undeclared(result, prefix, depth) : this.declared(result, schema, prefix, depth);
  }

  private declared(result: Obj, schema: CodeOutputSchema, prefix: string, depth: number): Obj {
    const out: Obj = {};
    for (const [name, decl] of Object.entries(schema)) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (!Object.hasOwn(result, name)) {
        throw new CodeOutputError("code.output_missing", `output ${path} is missing from the result of main`, path);
      }
      out[name] = this.typed(result[name], decl, path, depth);
    }
    const extra = Object.keys(result).filter((k) => !Object.hasOwn(schema, k));
    if (extra.length > 0) {
      const where = prefix ? ` in ${prefix}` : "";
      throw new CodeOutputError(
        "code.output_extra",
        `main returned ${extra.length === 1 ? "a key" : "keys"} not declared as outputs${where}: ${extra.map((k) => JSON.stringify(k)).join(", ")}`,
        prefix ? `${prefix}.${extra[0]}` : (extra[0] ?? ""),
      );
    }
    return out;
  }

  private typed(value: unknown, decl: CodeOutputDecl, path: string, depth: number): unknown {
    const t = decl.type;
    switch (t) {
      case "string":
        return this.string(value, path);
      case "number": {
        if (typeof value === "boolean") return value ? 1 : 0;
        return this.number(value, path);
      }
      case "boolean":
        if (value === null || typeof value === "boolean") return value;
        throw this.wrongType(path, "a boolean", value);
      case "object":
        if (value === null) return null;
        if (!isObj(value)) throw this.wrongType(path, "an object", value);
        return this.object(value, decl.children ?? null, path, depth + 1);
      case "array[string]":
      case "array[number]":
      case "array[boolean]":
      case "array[object]":
        return this.array(value, t, decl, path, depth);
      default:
        throw new CodeOutputError(
          "code.output_unsupported_type",
          `output ${path} has type ${JSON.stringify(t)}, which a code node cannot produce (use one of ${CODE_OUTPUT_TYPES.join(", ")})`,
          path,
        );
    }
  }

  private array(value: unknown, t: CodeOutputType, decl: CodeOutputDecl, path: string, depth: number): unknown {
    if (value === null) return null;
    if (!Array.isArray(value)) throw this.wrongType(path, "an array", value);
    const max =
      t === "array[number]"
        ? this.lim.maxNumberArrayLength
        : t === "array[string]"
          ? this.lim.maxStringArrayLength
          : t === "array[object]"
            ? this.lim.maxObjectArrayLength
            : this.lim.maxBooleanArrayLength;
    if (value.length > max) {
      throw new CodeOutputError(
        "code.output_array_too_long",
        `output ${path} has ${value.length} elements; at most ${max} are allowed for ${t}`,
        path,
      );
    }
    return value.map((v, i) => {
      const at = `${path}[${i}]`;
      switch (t) {
        case "array[number]":
          if (typeof v !== "number") throw this.wrongType(at, "a number", v);
          return this.number(v, at);
        case "array[string]":
          if (typeof v !== "string") throw this.wrongType(at, "a string", v);
          return this.string(v, at);
        case "array[boolean]":
          if (typeof v !== "boolean") throw this.wrongType(at, "a boolean", v);
          return v;
        default:
          if (v === null) return null;
          if (!isObj(v)) throw this.wrongType(at, "an object", v);
          return this.object(v, decl.children ?? null, at, depth + 1);
      }
    });
  }

  /** Dify's untyped mode: limits apply, and arrays must hold one kind of element (nulls tolerated). */
  private undeclared(result: Obj, prefix: string, depth: number): Obj {
    const out: Obj = {};
    for (const [name, value] of Object.entries(result)) {
      const path = prefix ? `${prefix}.${name}` : name;
      out[name] = this.untyped(value, path, depth);
    }
    return out;
  }

  private untyped(value: unknown, path: string, depth: number): unknown {
    if (value === null || typeof value === "boolean") return value;
    if (typeof value === "number") return this.number(value, path);
    if (typeof value === "string") return this.string(value, path);
    if (isObj(value)) return this.object(value, null, path, depth + 1);
    if (Array.isArray(value)) {
      const first = value[0];
      if (first === undefined || first === null) return value;
      const same = (pred: (v: unknown) => boolean, nullable: boolean) =>
        value.every((v) => pred(v) || (nullable && v === null));
      if (typeof first === "number" && same((v) => typeof v === "number", true)) {
        return value.map((v, i) => (v === null ? null : this.number(v, `${path}[${i}]`)));
      }
      if (typeof first === "string" && same((v) => typeof v === "string", false)) {
        return value.map((v, i) => this.string(v, `${path}[${i}]`));
      }
      if (typeof first === "boolean" && same((v) => typeof v === "boolean", true)) return value;
      if (isObj(first) && same(isObj, true)) {
        return value.map((v, i) => (v === null ? null : this.object(v as Obj, null, `${path}[${i}]`, depth + 1)));
      }
      throw new CodeOutputError(
        "code.output_not_homogeneous",
        `output ${path} is not a valid array: all elements must have the same type`,
        path,
      );
    }
    throw new CodeOutputError("code.output_type", `output ${path} has an unsupported value type ${typeof value}`, path);
  }

  private string(value: unknown, path: string): string | null {
    if (value === null) return null;
    if (typeof value !== "string") throw this.wrongType(path, "a string", value);
    if (value.length > this.lim.maxStringLength) {
      throw new CodeOutputError(
        "code.output_too_long",
        `output ${path} is ${value.length} characters long; at most ${this.lim.maxStringLength} are allowed`,
        path,
      );
    }
    return value.includes("\0") ? value.replaceAll("\0", "") : value;
  }

  private number(value: unknown, path: string): number | null {
    if (value === null) return null;
    if (typeof value !== "number") throw this.wrongType(path, "a number", value);
    // Doubles cannot hold 2^63-1; anything that rounds to 2^63 or beyond is out of range.
    if (
      !Number.isFinite(value) ||
      value >= 2 ** 63 ||
      value <= -(2 ** 63) ||
      value > this.lim.maxNumber ||
      value < this.lim.minNumber
    ) {
      throw new CodeOutputError(
        "code.output_out_of_range",
        `output ${path} is out of range: it must be between ${bound(this.lim.minNumber)} and ${bound(this.lim.maxNumber)}`,
        path,
      );
    }
    if (!Number.isInteger(value) && decimalPlaces(value) > this.lim.maxPrecision) {
      throw new CodeOutputError(
        "code.output_precision",
        `output ${path} has more than ${this.lim.maxPrecision} decimal places`,
        path,
      );
    }
    return value;
  }

  private wrongType(path: string, wanted: string, got: unknown): CodeOutputError {
    return new CodeOutputError("code.output_type", `output ${path} must be ${wanted}, got ${kindOf(got)}`, path);
  }
}

/** Prints the int64 bounds exactly, although doubles cannot hold them. */
function bound(n: number): string {
  if (n >= 2 ** 63 - 1) return "9223372036854775807";
  if (n <= -(2 ** 63 - 1)) return "-9223372036854775807";
  return String(n);
}

/** Digits after the point in the shortest round-trip form, exponent notation included (1.5e-7 → 8). */
export function decimalPlaces(n: number): number {
  const s = String(Math.abs(n));
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(s);
  if (!m) return 0;
  const frac = m[2]?.length ?? 0;
  const exp = m[3] ? Number(m[3]) : 0;
  return Math.max(0, frac - exp);
}
