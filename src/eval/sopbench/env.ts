import type { ToolSpec } from "../../ir/services.js";
import type { Row } from "./csv.js";
import { type Domain, loadDomain, type ReturnSpec, type ToolBinding } from "./dataset.js";
import { SopBenchError, ToolCallError } from "./errors.js";
import type { EnvOptions } from "./options.js";
import { RULES } from "./rules/index.js";
import type { RuleCtx } from "./rules/types.js";
import { ArgValidator, type ValidationMode } from "./schema.js";
import { cellEquals, convertCell, pyInt, seededRandom, truthy } from "./values.js";

export type { EnvOptions } from "./options.js";

/** The clock benchmarks pin: referral v2's "within 90 days" needs a date on or after ~2025-12-01. */
export const PINNED_NOW = "2026-01-01T00:00:00.000Z";

export interface CallRecord {
  tool: string;
  args: Record<string, unknown>;
  result?: unknown;
  error?: { code: string; message: string };
  matchedRowIndex?: number;
}

interface Signature {
  params: string[];
  required: Set<string>;
  defaults: Record<string, unknown>;
}

function parseSignature(args: string[]): Signature {
  const params: string[] = [];
  const required = new Set<string>();
  const defaults: Record<string, unknown> = {};
  for (const a of args) {
    const m = /^([^?]+)(\?(?:=(.*))?)?$/.exec(a);
    const name = (m?.[1] ?? a).trim();
    params.push(name);
    if (!m?.[2]) required.add(name);
    else if (m[3] !== undefined) defaults[name] = m[3].startsWith("'") ? m[3].slice(1, -1) : Number(m[3]);
  }
  return { params, required, defaults };
}

/**
 * One domain's tool environment: every tool in tool_bindings.json, answered from the labelled CSV (or the
 * constant tables / rules), with a call log. Tool failures throw ToolCallError; the message is what the original
 * returned after "Error: ".
 */
export class SopBenchEnv {
  readonly domain: Domain;
  readonly log: CallRecord[] = [];
  readonly now: () => Date;
  random: () => number;
  readonly options: Required<Pick<EnvOptions, "validation" | "warehouseMode" | "seed">> & EnvOptions;
  private readonly validator: ArgValidator;
  private readonly bindings = new Map<string, ToolBinding | "stub">();
  private readonly specByName = new Map<string, ToolSpec>();

  constructor(domain: Domain | string, options: EnvOptions = {}) {
    this.domain = typeof domain === "string" ? loadDomain(domain, options.corpusDir) : domain;
    this.options = { validation: "structural", warehouseMode: "csv", seed: 42, ...options };
    const pinned = new Date(PINNED_NOW);
    this.now = options.now ?? (() => new Date(pinned));
    this.random = seededRandom(this.options.seed);
    for (const [name, b] of Object.entries(this.domain.bindings.tools)) {
      if ("names" in b) for (const n of b.names) this.bindings.set(n, "stub");
      else this.bindings.set(name, b);
    }
    for (const s of this.domain.toolSpecs) this.specByName.set(s.name, s);
    for (const name of this.bindings.keys())
      if (!this.specByName.has(name))
        throw new SopBenchError("sopbench.data", `Tool ${name} is bound but has no toolspec in ${this.domain.name}`);
    this.validator = validatorFor(this.domain, this.options.validation, this.options.coerceArgs ?? false);
  }

  /**
   * Tool specs in toolspecs.json order by default. Upstream video_annotation shuffled its list at start-up
   * (random.shuffle); `shuffleToolSpecs` reproduces that with a seeded Fisher–Yates, so runs stay repeatable.
   */
  specs(): ToolSpec[] {
    const list = this.domain.toolSpecs.filter((s) => this.bindings.has(s.name));
    if (!this.options.shuffleToolSpecs) return list;
    const rnd = seededRandom(this.options.seed);
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [list[i], list[j]] = [list[j] as ToolSpec, list[i] as ToolSpec];
    }
    return list;
  }

  /** Clears the log and re-seeds the RNG, so each task starts from the same state. */
  reset(): void {
    this.log.length = 0;
    this.random = seededRandom(this.options.seed);
  }

  call(tool: string, rawArgs: Record<string, unknown> = {}): unknown {
    const record: CallRecord = { tool, args: {} };
    this.log.push(record);
    try {
      const args = jsonCopy(tool, rawArgs ?? {});
      record.args = jsonCopy(tool, args);
      const result = this.dispatch(tool, args, record);
      record.result = result;
      return result;
    } catch (e) {
      const err =
        e instanceof SopBenchError
          ? e
          : new ToolCallError(tool, (e as Error).message ?? String(e), { domain: this.domain.name });
      record.error = { code: err.code, message: err.message };
      throw err;
    }
  }

  private dispatch(tool: string, args: Record<string, unknown>, record: CallRecord): unknown {
    const binding = this.bindings.get(tool);
    if (binding === undefined)
      throw new SopBenchError("sopbench.unknown_tool", `Unknown tool "${tool}" in domain ${this.domain.name}`, {
        domain: this.domain.name,
        tool,
        known: [...this.bindings.keys()],
      });
    if (typeof args !== "object" || args === null || Array.isArray(args))
      throw new SopBenchError("sopbench.invalid_args", `Arguments for ${tool} must be an object`, { tool });
    this.validator.check(this.domain.name, tool, args);
    if (binding === "stub") return null;
    const fail = (message: string): never => {
      throw new ToolCallError(tool, message, { domain: this.domain.name });
    };
    this.checkSignature(tool, binding, args, fail);
    const ctx: RuleCtx = {
      env: this,
      domain: this.domain,
      tool,
      args,
      binding,
      fail,
      rowsWhere: (m) => {
        const rows = this.rowsWhere(m);
        if (rows[0] && record.matchedRowIndex === undefined)
          record.matchedRowIndex = this.domain.table.rows.indexOf(rows[0]);
        return rows;
      },
      generic: () => this.generic(binding, args, record, fail),
    };
    const rule = RULES[this.domain.name]?.[tool];
    if (rule) return rule(ctx);
    if (binding.kind === "rule" || binding.kind === "rule+lookup")
      throw new SopBenchError("sopbench.data", `No rule implementation for ${this.domain.name}.${tool}`);
    return ctx.generic();
  }

  /** Python call semantics: unknown keywords and missing positionals raise TypeError upstream. */
  private checkSignature(
    tool: string,
    b: ToolBinding,
    args: Record<string, unknown>,
    fail: (m: string) => never,
  ): void {
    const sig = parseSignature(b.args);
    for (const k of Object.keys(args))
      if (!sig.params.includes(k)) fail(`${tool}() got an unexpected keyword argument '${k}'`);
    const missing = [...sig.required].filter((k) => !(k in args));
    if (missing.length)
      fail(
        `${tool}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${missing.map((m) => `'${m}'`).join(", ")}`,
      );
    for (const [k, v] of Object.entries(sig.defaults)) if (!(k in args)) args[k] = v;
    const req = b.require_truthy === "all" ? sig.params.filter((p) => sig.required.has(p)) : (b.require_truthy ?? []);
    if (req.some((k) => !truthy(args[k]))) fail("Missing required parameters");
  }

  rowsWhere(match: Record<string, unknown>): Row[] {
    const { table } = this.domain;
    return table.rows.filter((row) =>
      Object.entries(match).every(([col, v]) =>
        cellEquals(row[col] ?? null, table.dtypes[col] ?? "str", v, this.options.floatTolerance ?? 0),
      ),
    );
  }

  private matchArgs(
    b: ToolBinding,
    args: Record<string, unknown>,
    fail: (m: string) => never,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [arg, expr] of Object.entries(b.match ?? {})) {
      const cast = /^int\((\w+)\)$/.exec(expr);
      if (cast) {
        try {
          out[cast[1] as string] = pyInt(args[arg]);
        } catch (e) {
          fail((e as Error).message);
        }
      } else out[expr] = args[arg];
    }
    return out;
  }

  private returnsOf(b: ToolBinding): Record<string, ReturnSpec> | undefined {
    if (typeof b.returns !== "string") return b.returns;
    // "same as v1 analyze_traffic_patterns": referral v2 reuses v1's projection.
    const m = /^same as v1 (\w+)$/.exec(b.returns);
    const v1 = m
      ? loadDomain("referral_abuse_detection_v1", this.options.corpusDir).bindings.tools[m[1] as string]
      : undefined;
    if (!v1 || "names" in v1 || typeof v1.returns !== "object")
      throw new SopBenchError("sopbench.data", `Cannot resolve returns "${b.returns}"`);
    return v1.returns;
  }

  private generic(
    b: ToolBinding,
    args: Record<string, unknown>,
    record: CallRecord,
    fail: (m: string) => never,
  ): unknown {
    if (b.kind === "stub") return null;
    const firstArg = String(args[b.args[0]?.replace(/\?.*$/, "") ?? ""] ?? "");
    const missingMsg = (b.on_missing ?? "No record found for the given parameters").replace(/<\w+>/g, firstArg);
    if (b.kind === "constant") {
      if (b.requires_row) {
        const rows = this.rowsWhere({ [b.requires_row]: args[b.requires_row] });
        if (rows.length === 0) fail(missingMsg);
      }
      return fillConstant(b.returns_constant, args);
    }
    const rows = this.rowsWhere(this.matchArgs(b, args, fail));
    if (rows.length === 0) fail(missingMsg);
    if (b.unique && rows.length > 1) fail(`Multiple records found for ${firstArg}`);
    const row = rows[0] as Row;
    record.matchedRowIndex = this.domain.table.rows.indexOf(row);
    const dtypes = this.domain.table.dtypes;
    const conv = (col: string, type: string | undefined) => {
      try {
        return convertCell(row[col] ?? null, dtypes[col] ?? "str", type);
      } catch (e) {
        return fail((e as Error).message);
      }
    };
    if (b.kind === "scalar_lookup") {
      const v = conv(b.column as string, undefined);
      return b.wrap ? { [b.wrap]: v } : v;
    }
    const out: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(this.returnsOf(b) ?? {})) {
      out[key] = spec.arg !== undefined ? args[spec.arg] : conv(spec.column as string, spec.type);
    }
    return out;
  }
}

// Compiling ~26 schemas per env is the costly part of creating one; envs are made per task, so share them.
const validators = new WeakMap<Domain, Map<string, ArgValidator>>();
function validatorFor(domain: Domain, mode: ValidationMode, coerce: boolean): ArgValidator {
  const byMode = validators.get(domain) ?? new Map<string, ArgValidator>();
  validators.set(domain, byMode);
  const key = `${mode}:${coerce}`;
  const v = byMode.get(key) ?? new ArgValidator(domain.toolSpecs, mode, coerce);
  byMode.set(key, v);
  return v;
}

/** Arguments arrive over JSON (MCP, LLM tool calls); anything that is not JSON data is a caller bug. */
function jsonCopy(tool: string, v: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
  } catch (e) {
    throw new SopBenchError(
      "sopbench.invalid_args",
      `Arguments for ${tool} are not JSON data: ${(e as Error).message}`,
      { tool },
    );
  }
}

function fillConstant(value: unknown, args: Record<string, unknown>): unknown {
  if (value === "<arg>") return undefined;
  if (Array.isArray(value)) return value.map((v) => fillConstant(v, args));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, v === "<arg>" ? args[k] : fillConstant(v, args)]),
    );
  }
  return structuredClone(value);
}
