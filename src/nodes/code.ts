import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, WeftError } from "../ir/errors.js";
import { SANDBOX_STARTUP_ALLOWANCE_MS } from "../ir/services.js";
import { normaliseType } from "../ir/types.js";
import { pythonImports, pythonModuleVerdict } from "../sandbox/python-modules.js";
import {
  CODE_OUTPUT_TYPES,
  type CodeOutputDecl,
  CodeOutputError,
  type CodeOutputSchema,
  checkCodeOutputs,
} from "./code-output.js";
import { bindingInputs, commonFields, defineNode, SOURCE, VariableBinding } from "./common.js";

const OutputDecl: z.ZodType<CodeOutputDecl> = z.lazy(() =>
  z
    .object({
      type: z.string(),
      children: z.record(z.string(), OutputDecl).nullable().optional(),
    })
    .loose(),
);

const CodeConfig = z
  .object({
    ...commonFields,
    variables: z.array(VariableBinding).default([]),
    code_language: z.enum(["python3", "javascript"]).default("python3"),
    code: z.string().default(""),
    /** Null means "not declared": Dify then only checks limits and homogeneous arrays. */
    outputs: z.record(z.string(), OutputDecl).nullable().optional(),
    dependencies: z.array(z.unknown()).nullable().optional(),
  })
  .loose();
export type CodeConfig = z.infer<typeof CodeConfig>;

const MAIN_PATTERNS: Record<CodeConfig["code_language"], RegExp> = {
  python3: /^[ \t]*(?:async[ \t]+)?def[ \t]+main[ \t]*\(/m,
  javascript:
    /(?:\bfunction\s*\*?\s*main\s*\(|\b(?:const|let|var)\s+main\s*=|\bmain\s*=\s*(?:async\s*)?(?:function|\())/,
};

const PY_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Dify hands the sandbox plain JSON: file values are already dicts, and an empty file list
 * becomes null.
 */
function toSandboxValue(value: unknown, valueType: string | undefined): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value) && value.length === 0 && valueType === "array[file]") return null;
  return value;
}

function outputRules(schema: CodeOutputSchema, prefix: string, nodeId: string, out: Diagnostic[], depth: number): void {
  for (const [name, decl] of Object.entries(schema)) {
    const field = `${prefix}.${name}`;
    if (!(CODE_OUTPUT_TYPES as readonly string[]).includes(decl.type)) {
      out.push({
        code: "code.invalid_output_type",
        severity: "error",
        nodeId,
        field: `${field}.type`,
        message: `output "${name}" has type ${JSON.stringify(decl.type)}; a code node can return ${CODE_OUTPUT_TYPES.join(", ")}`,
      });
    }
    if (decl.children && Object.keys(decl.children).length > 0) {
      if (decl.type !== "object" && decl.type !== "array[object]") {
        out.push({
          code: "code.children_on_scalar",
          severity: "warning",
          nodeId,
          field: `${field}.children`,
          message: `output "${name}" declares children but its type ${decl.type} has no fields`,
        });
      } else if (depth >= 5) {
        out.push({
          code: "code.output_too_deep",
          severity: "error",
          nodeId,
          field: `${field}.children`,
          message: "declared outputs are nested deeper than Dify's limit of 5 levels",
        });
      } else {
        outputRules(decl.children, `${field}.children`, nodeId, out, depth + 1);
      }
    }
  }
}

/** Imports the sandbox will refuse when the code runs (python-modules.ts holds the policy both apply). */
function importRules(code: string, nodeId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const { module, line } of pythonImports(code)) {
    if (seen.has(module)) continue;
    seen.add(module);
    const verdict = pythonModuleVerdict(module);
    if (verdict.allowed) continue;
    out.push({
      code: "code.module_refused",
      severity: "warning",
      nodeId,
      field: "code",
      message:
        verdict.reason === "denied"
          ? `line ${line}: the sandbox refuses "import ${module}": code has no files, processes or interpreter internals (HTTP goes through requests, httpx or urllib.request)`
          : `line ${line}: module "${module}" is not available in the sandbox, which offers the pure standard library, sys, os, pathlib, socket, requests and httpx; the node will fail when it runs`,
    });
  }
  return out;
}

export const codeNode = defineNode<CodeConfig>({
  type: "code",
  label: "Code",
  category: "transform",
  purpose:
    "Runs a Python 3 or JavaScript function main over the bound variables in a sandbox and returns its dict as typed outputs.",
  notes: [
    "Python calls main(**inputs) (parameters matched by name); JavaScript calls main(inputs) with one object, usually destructured.",
    "main must return a JSON object whose keys are exactly the declared outputs; an extra or missing key fails the node.",
    "Output types: string, number, boolean, object, array[string], array[number], array[boolean], array[object].",
    "Limits: strings ≤ 400 000 characters, nesting ≤ 5, string/object arrays ≤ 30 items, number arrays ≤ 1000.",
    "No files, processes or environment inside the sandbox; Python may import json, re, math, datetime, collections, itertools, random, hashlib, base64, string and other pure standard modules, sys, os.path, and requests, httpx or urllib.request, whose HTTP goes through the same address policy as the HTTP node.",
    "A variable whose source is missing is passed as null.",
  ],
  configSchema: CodeConfig,
  // The sandbox holds the code to timeout_seconds from the moment it starts; booting is not its time.
  timeoutAllowanceMs: SANDBOX_STARTUP_ALLOWANCE_MS,
  example: {
    variables: [{ variable: "text", value_selector: ["start", "query"] }],
    code_language: "python3",
    code: 'def main(text: str) -> dict:\n    return {"length": len(text or "")}\n',
    outputs: { length: { type: "number", children: null } },
  },
  outputs: (c) => Object.entries(c.outputs ?? {}).map(([name, decl]) => ({ name, type: normaliseType(decl.type) })),
  inputs: (c) => bindingInputs(c.variables, "variables"),
  ports: () => SOURCE,
  rules(c, ctx) {
    const nodeId = ctx.node.id;
    const out: Diagnostic[] = [];
    if (c.code.trim() === "") {
      out.push({ code: "code.empty", severity: "error", nodeId, field: "code", message: "the code is empty" });
    } else if (!MAIN_PATTERNS[c.code_language].test(c.code)) {
      out.push({
        code: "code.missing_main",
        severity: "error",
        nodeId,
        field: "code",
        message:
          c.code_language === "python3"
            ? "the code must define def main(...) returning a dict"
            : "the code must define function main({...}) returning an object",
      });
    }
    const seen = new Set<string>();
    for (const [i, v] of c.variables.entries()) {
      const field = `variables[${i}].variable`;
      if (v.variable === "") {
        out.push({ code: "code.empty_variable", severity: "error", nodeId, field, message: "a variable has no name" });
        continue;
      }
      if (seen.has(v.variable)) {
        out.push({
          code: "code.duplicate_variable",
          severity: "error",
          nodeId,
          field,
          message: `variable "${v.variable}" is declared twice`,
        });
      }
      seen.add(v.variable);
      if (c.code_language === "python3" && !PY_IDENT.test(v.variable)) {
        out.push({
          code: "code.variable_not_identifier",
          severity: "warning",
          nodeId,
          field,
          message: `variable "${v.variable}" is not a Python identifier, so main(**inputs) can only receive it through **kwargs`,
        });
      }
      if (v.value_selector.length === 0) {
        out.push({
          code: "code.unbound_variable",
          severity: "warning",
          nodeId,
          field: `variables[${i}].value_selector`,
          message: `variable "${v.variable}" is not bound to any value and will be null`,
        });
      }
    }
    if (c.outputs) outputRules(c.outputs, "outputs", nodeId, out, 1);
    if (c.code_language === "python3") out.push(...importRules(c.code, nodeId));
    if (Array.isArray(c.dependencies) && c.dependencies.length > 0) {
      out.push({
        code: "code.dependencies_ignored",
        severity: "warning",
        nodeId,
        field: "dependencies",
        message:
          "extra packages are not installed in Weft's sandbox; it offers the standard library, requests and httpx",
      });
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const nodeId = ctx.node.id;
    const sandbox = ctx.services.sandbox;
    if (!sandbox) {
      throw new NodeExecutionError(
        "sandbox.not_configured",
        "this code node needs a code sandbox, but none is configured for the run",
        nodeId,
      );
    }
    const inputs: Record<string, unknown> = {};
    for (const v of c.variables) {
      const r = v.value_selector.length > 0 ? ctx.read(v.value_selector) : { found: false };
      inputs[v.variable] = r.found ? toSandboxValue(r.value, v.value_type) : null;
    }
    let result: unknown;
    try {
      result = await sandbox.run({
        language: c.code_language,
        code: c.code,
        inputs,
        limits: c.timeout_seconds ? { timeoutMs: Math.round(c.timeout_seconds * 1000) } : undefined,
        signal: ctx.signal,
      });
    } catch (e) {
      if (e instanceof NodeExecutionError) throw e;
      if (e instanceof WeftError) {
        throw new NodeExecutionError(e.code, `code node ${nodeId}: ${e.message}`, nodeId, { ...e.details });
      }
      throw new NodeExecutionError(
        "sandbox.runtime_error",
        `code node ${nodeId}: the sandbox failed: ${(e as Error)?.message ?? String(e)}`,
        nodeId,
      );
    }
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      throw new NodeExecutionError("sandbox.bad_result", `code node ${nodeId}: main must return an object`, nodeId);
    }
    try {
      return { outputs: checkCodeOutputs(result as Record<string, unknown>, c.outputs) };
    } catch (e) {
      if (e instanceof CodeOutputError) {
        throw new NodeExecutionError(e.code, `code node ${nodeId}: ${e.message}`, nodeId, { path: e.path });
      }
      throw e;
    }
  },
});
