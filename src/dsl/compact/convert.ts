/**
 * The reading side of compact JSON: a context that turns compact references (`[variable, node_id]`
 * tuples, `{{#'id'.var#}}` text, Dify-order selectors inside `dify` params) into IR selectors and
 * records every problem as a typed diagnostic. Everything here reads model output, so no value is
 * trusted: lookups are own-key only and messages describe values without calling them.
 */
import type { Diagnostic } from "../../ir/diagnostics.js";
import type { NodeTypes } from "../../ir/registry.js";
import { isReservedHead } from "../../ir/selector.js";
import type { AppMode } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { describeValue, isPlainObject, type JsonObject, scalarText, setOwn } from "../../util/json.js";

export interface ModelChoice {
  provider: string;
  name: string;
}

export interface CompactOptions {
  name?: string;
  mode?: AppMode;
  /** Model written into new llm nodes that name none (the compact format usually names none). */
  llmModel?: ModelChoice;
  /** Model for new question-classifier and parameter-extractor nodes; defaults to `llmModel`. */
  structuredModel?: ModelChoice;
  /** The IR id of each compact id (edit reading maps answer ids onto the base workflow's ids). */
  idFor?: (compactId: string) => string;
  /** Accept references to nodes listed later (edit reading); the generation format requires order. */
  anyOrder?: boolean;
  /**
   * Accept what Chat2Workflow's own converter (converter.py, nodes/dify/basic/start.py) accepts and Weft's
   * refuses, each with a warning: a start input type Dify has no name for is written as given, and an
   * `X-n` node under an earlier node that is no iteration stays at the top level. The evaluation's upstream
   * fidelity sets it, so that the answers upstream carried to its judge are carried here too.
   */
  upstreamConverter?: boolean;
  /** The node types compact JSON may name; default every node Weft defines. */
  nodeTypes?: NodeTypes;
}

/** Dify template ids must be `[A-Za-z0-9_]`; compact ids like "2-1" become "2_1". */
export function irId(compactId: string): string {
  return compactId.replace(/[^A-Za-z0-9_]/g, "_");
}

/** A compact id as written: a string, or a finite number read as its text. */
export function compactIdOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

const TEXT_REF = /\{\{#\s*(['"]?)([^'".#{}]+)\1\.([A-Za-z0-9_.]+)\s*#\}\}/g;

export class Converter {
  readonly diags: Diagnostic[] = [];
  /** Compact id → IR id, for every node defined so far. */
  readonly ids = new Map<string, string>();
  /** Compact id → compact type. */
  readonly types = new Map<string, string>();
  readonly nodeTypes: NodeTypes;

  constructor(readonly opts: CompactOptions) {
    this.nodeTypes = opts.nodeTypes ?? nodeCatalogue;
  }

  error(code: string, message: string, nodeId?: string, field?: string): void {
    this.diags.push({
      code,
      severity: "error",
      message,
      ...(nodeId !== undefined ? { nodeId } : {}),
      ...(field ? { field } : {}),
    });
  }

  warn(code: string, message: string, nodeId?: string, field?: string): void {
    this.diags.push({
      code,
      severity: "warning",
      message,
      ...(nodeId !== undefined ? { nodeId } : {}),
      ...(field ? { field } : {}),
    });
  }

  /** The IR id a reference head names: a defined node, or a reserved head (sys, env, conversation). */
  private head(id: string): string | undefined {
    if (isReservedHead(id)) return id;
    return this.ids.get(id);
  }

  /** A tuple reference `[var, nodeId]` (name first) → selector `[irId, var, ...path]`. */
  ref(v: unknown, nodeId: string, field: string): string[] | undefined {
    const target = Array.isArray(v) && v.length === 2 && typeof v[0] === "string" ? compactIdOf(v[1]) : undefined;
    if (!Array.isArray(v) || target === undefined || (v[0] as string) === "") {
      this.error(
        "compact.bad_reference",
        `${field} must be a [variable, node_id] pair, got ${describeValue(v)}`,
        nodeId,
        field,
      );
      return undefined;
    }
    const mapped = this.head(target.trim());
    if (!mapped) {
      this.error(
        "compact.unknown_node_ref",
        `${field} references node "${target}", which is not defined`,
        nodeId,
        field,
      );
      return undefined;
    }
    return [mapped, ...(v[0] as string).split(".")];
  }

  /** `ref` without reporting: the selector when the tuple names a node defined so far. */
  peekRef(v: unknown): string[] | undefined {
    const target =
      Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && v[0] !== "" ? compactIdOf(v[1]) : undefined;
    const mapped = target === undefined ? undefined : this.head(target.trim());
    return mapped ? [mapped, ...(v as [string])[0].split(".")] : undefined;
  }

  /** Rewrite `{{#'2-2'.text#}}`, `{{#"3".x#}}`, `{{#3.x#}}` to IR ids. */
  text(v: unknown, nodeId: string, field: string): string {
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") {
      this.error(
        "compact.bad_text",
        `${field} must be a string, got ${Array.isArray(v) ? "a list" : typeof v}`,
        nodeId,
        field,
      );
      return "";
    }
    return v.replace(TEXT_REF, (raw, _q, id: string, rest: string) => {
      const mapped = this.head(id.trim());
      if (!mapped) {
        this.error(
          "compact.unknown_node_ref",
          `${field} references node "${id}" in ${raw}, which is not defined`,
          nodeId,
          field,
        );
        return raw;
      }
      return `{{#${mapped}.${rest}#}}`;
    });
  }

  list(v: unknown, nodeId: string, field: string): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.error("compact.bad_param", `${field} must be a list, got ${describeValue(v)}`, nodeId, field);
      return [];
    }
    return v;
  }

  /** `[[name, [variable, node_id]], ...]` → Dify `{variable, value_selector}` bindings. */
  bindings(v: unknown, nodeId: string, field: string): Array<{ variable: string; value_selector: string[] }> {
    return this.list(v, nodeId, field).flatMap((b, i) => {
      if (!Array.isArray(b) || b.length !== 2 || typeof b[0] !== "string") {
        this.error(
          "compact.bad_param",
          `${field}[${i}] must be [name, [variable, node_id]], got ${describeValue(b)}`,
          nodeId,
          `${field}[${i}]`,
        );
        return [];
      }
      const sel = this.ref(b[1], nodeId, `${field}[${i}]`);
      return sel ? [{ variable: b[0], value_selector: sel }] : [];
    });
  }

  /** A name-like scalar (`"pdf"`, `3`) as text; anything else is reported. */
  name(v: unknown, nodeId: string, field: string, fallback = ""): string {
    if (v === undefined || v === null) return fallback;
    const s = scalarText(v);
    if (s === undefined) {
      this.error("compact.bad_param", `${field} must be a string, got ${describeValue(v)}`, nodeId, field);
      return fallback;
    }
    return s;
  }

  /**
   * A Dify config written in Dify order (`dify` params, and types without a shorthand): selectors
   * `[node_id, var, ...]` whose head is a defined node are re-targeted, and so is template text.
   */
  dify(v: unknown, nodeId: string, field = ""): unknown {
    if (typeof v === "string") return v.includes("{{#") ? this.text(v, nodeId, field) : v;
    if (Array.isArray(v)) {
      if (v.length >= 2 && v.every((x) => typeof x === "string") && this.ids.has(v[0] as string))
        return [this.ids.get(v[0] as string)!, ...v.slice(1)];
      return v.map((x, i) => this.dify(x, nodeId, `${field}[${i}]`));
    }
    if (isPlainObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) setOwn(out, k, this.dify(x, nodeId, field ? `${field}.${k}` : k));
      return out;
    }
    return v;
  }
}
