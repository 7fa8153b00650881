import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import type { Diagnostic } from "../ir/diagnostics.js";
import { ImportError, SchemaError } from "../ir/errors.js";
import { type Workflow, WorkflowSchema } from "../ir/workflow.js";
import { importDify, MAX_DSL_BYTES } from "./dify/import.js";
import { readYaml } from "./dify/yaml-read.js";

/**
 * One entry point for workflow files: Dify DSL (YAML, or the same document as JSON) or Weft JSON (the IR as
 * JSON, marked `weft: 1` or recognisable by its shape). Bad input gives an ImportError or SchemaError.
 */

export type WorkflowFormat = "dify" | "weft";

export interface LoadedWorkflow {
  workflow: Workflow;
  warnings: Diagnostic[];
  format: WorkflowFormat;
}

export interface SchemaIssue {
  path: string;
  message: string;
}

function pathText(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out || "(root)";
}

function looksLikeWeft(v: Record<string, unknown>): boolean {
  if (Object.hasOwn(v, "weft")) return true;
  return !Object.hasOwn(v, "app") && Array.isArray(v.nodes) && Array.isArray(v.edges);
}

/** Validate a parsed Weft JSON object against the workflow schema. */
export function parseWeftObject(value: unknown, nameHint?: string): LoadedWorkflow {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ImportError("weft.not_object", "Weft JSON must be an object with mode, nodes and edges");
  }
  const obj = value as Record<string, unknown>;
  if (obj.weft !== undefined && obj.weft !== 1) {
    throw new ImportError(
      "weft.version_unsupported",
      `Weft JSON format ${JSON.stringify(obj.weft)} is not supported (expected weft: 1)`,
    );
  }
  const input = obj.name === undefined && nameHint ? { ...obj, name: nameHint } : obj;
  const r = WorkflowSchema.safeParse(input);
  if (!r.success) {
    const issues: SchemaIssue[] = r.error.issues.map((i) => ({ path: pathText(i.path), message: i.message }));
    const shown = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : "";
    throw new SchemaError("weft.schema_invalid", `invalid Weft workflow: ${shown.join("; ")}${more}`, { issues });
  }
  return { workflow: r.data, warnings: [], format: "weft" };
}

function jsonErrorPosition(text: string, message: string): { line?: number; col?: number } {
  const m = /position (\d+)/.exec(message);
  if (!m) {
    // Node 20 leaves the position out of some messages; the YAML reader (JSON is YAML) can locate the fault.
    const y = readYaml(text);
    return y.ok ? {} : { line: y.error.line, col: y.error.col };
  }
  const pos = Number(m[1]);
  const before = text.slice(0, pos).split("\n");
  return { line: before.length, col: (before.at(-1)?.length ?? 0) + 1 };
}

/** Parse workflow text: Weft JSON or Dify DSL. `nameHint` names a workflow that has no name of its own. */
export function parseWorkflowText(text: string, nameHint?: string): LoadedWorkflow {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trimStart().startsWith("{")) {
    if (Buffer.byteLength(body, "utf8") > MAX_DSL_BYTES) {
      throw new ImportError("dsl.too_large", `the file is over ${MAX_DSL_BYTES} bytes (10 MB)`);
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const { line, col } = jsonErrorPosition(body, message);
      const where = line !== undefined ? ` at line ${line}, column ${col}` : "";
      throw new ImportError("weft.not_json", `not valid JSON${where}: ${message}`, { line, col });
    }
    if (
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      looksLikeWeft(value as Record<string, unknown>)
    ) {
      return parseWeftObject(value, nameHint);
    }
    // A Dify document written as JSON (JSON is YAML).
    const r = importDify(body, { nameHint });
    return { ...r, format: "dify" };
  }
  const r = importDify(body, { nameHint });
  return { ...r, format: "dify" };
}

/** Read a workflow file (Dify .yml/.yaml, or Weft/Dify .json). */
export async function loadWorkflowFile(path: string): Promise<LoadedWorkflow> {
  let size: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new ImportError("dsl.file_not_regular", `${path} is not a file`, { path });
    size = st.size;
  } catch (err) {
    if (err instanceof ImportError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImportError(
      code === "ENOENT" ? "dsl.file_not_found" : "dsl.file_unreadable",
      code === "ENOENT" ? `no such file: ${path}` : `cannot read ${path}: ${(err as Error).message}`,
      { path },
    );
  }
  if (size > MAX_DSL_BYTES) {
    throw new ImportError("dsl.too_large", `${path} is ${size} bytes; the limit is ${MAX_DSL_BYTES} (10 MB)`, {
      path,
      bytes: size,
    });
  }
  const text = await readFile(path, "utf8");
  const hint = basename(path, extname(path));
  try {
    return parseWorkflowText(text, hint);
  } catch (err) {
    if (err instanceof ImportError || err instanceof SchemaError) {
      err.message = `${path}: ${err.message}`;
      Object.assign(err.details, { path });
    }
    throw err;
  }
}
