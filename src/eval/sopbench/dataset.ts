import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolSpec } from "../../ir/services.js";
import { sharedCorpusDir } from "../../util/corpus.js";
import { type Cell, type Row, readTable, type Table } from "./csv.js";
import { SopBenchError, unknownDomain } from "./errors.js";

/** Where the staged SOP-Bench snapshot lives; tests and tools read it in place (licence: never copy it). */
export const DEFAULT_CORPUS_DIR = process.env.SOPBENCH_DIR ?? sharedCorpusDir("sopbench");

/** Binding of one tool, as written in tool_bindings.json (see its `_about`). */
export interface ReturnSpec {
  column?: string;
  arg?: string;
  type?: string;
}
export interface ToolBinding {
  kind: "lookup" | "scalar_lookup" | "rule" | "rule+lookup" | "stub" | "constant";
  args: string[];
  match?: Record<string, string>;
  returns?: Record<string, ReturnSpec> | string;
  column?: string;
  wrap?: string;
  unique?: boolean;
  on_missing?: string;
  require_truthy?: string[] | "all";
  requires_row?: string;
  returns_constant?: unknown;
  precondition?: string;
  logic?: string;
  note?: string;
}
export interface DomainBindings {
  task_key: string;
  input_columns: string[];
  output_columns: string[];
  tools: Record<string, ToolBinding | { kind: "stub"; names: string[] }>;
  [k: string]: unknown;
}

export interface Task {
  domain: string;
  /** Value of the domain's key column (unique per row in every labelled file). */
  taskId: string;
  index: number;
  /** What the agent is given. */
  inputs: Record<string, Cell>;
  /** The labels (output_columns). */
  expected: Record<string, Cell>;
}

export interface Domain {
  name: string;
  dir: string;
  sop: string;
  metadata: Record<string, unknown>;
  /** Tool specs in Weft's ToolSpec shape (Bedrock `toolSpec.inputSchema.json` becomes `parameters`). */
  toolSpecs: ToolSpec[];
  table: Table;
  bindings: DomainBindings;
  taskKey: string;
  inputColumns: string[];
  outputColumns: string[];
  tasks: Task[];
  /** order_fulfillment's hard-coded tables, when the domain has them. */
  constants?: Record<string, unknown>;
}

let bindingsCache: { dir: string; value: Record<string, unknown> } | undefined;

function readJson(path: string): unknown {
  if (!existsSync(path)) throw new SopBenchError("sopbench.data", `Missing corpus file ${path}`, { path });
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new SopBenchError("sopbench.data", `Malformed JSON in ${path}: ${(e as Error).message}`, { path });
  }
}

function allBindings(dir: string): Record<string, unknown> {
  if (bindingsCache?.dir !== dir)
    bindingsCache = { dir, value: readJson(join(dir, "tool_bindings.json")) as Record<string, unknown> };
  return bindingsCache.value;
}

/** The domains that have tool bindings (the 10 ARTIC domains), by corpus folder name. */
export function domains(dir = DEFAULT_CORPUS_DIR): string[] {
  return Object.keys(allBindings(dir))
    .filter((k) => !k.startsWith("_") && existsSync(join(dir, k)))
    .sort();
}

const cache = new Map<string, Domain>();

export function loadDomain(name: string, dir = DEFAULT_CORPUS_DIR): Domain {
  const key = `${dir}\u0000${name}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const known = domains(dir);
  if (!known.includes(name)) throw unknownDomain(name, known);
  const ddir = join(dir, name);
  const bindings = allBindings(dir)[name] as DomainBindings;
  const metadata = readJson(join(ddir, "metadata.json")) as Record<string, unknown>;
  const specsRaw = readJson(join(ddir, "toolspecs.json")) as Array<{
    toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
  }>;
  const toolSpecs: ToolSpec[] = specsRaw.map(({ toolSpec: s }) => ({
    name: s.name,
    description: s.description ?? "",
    parameters: s.inputSchema.json,
  }));
  const table = readTable(readFileSync(join(ddir, "test_set_with_outputs.csv"), "utf8"));
  const outputColumns = (metadata.output_columns as string[] | undefined) ?? bindings.output_columns;
  // tool_bindings.json carries the input lists metadata.json lacks (warehouse, order_fulfillment); using it
  // also closes the original loader's answer leak for those domains.
  const inputColumns = (metadata.input_columns as string[] | undefined) ?? bindings.input_columns;
  for (const c of [...inputColumns, ...outputColumns, bindings.task_key]) {
    if (!table.columns.includes(c))
      throw new SopBenchError("sopbench.data", `Domain ${name}: column "${c}" not in the labelled CSV`, {
        domain: name,
        column: c,
      });
  }
  const tasks: Task[] = table.rows.map((row: Row, index) => ({
    domain: name,
    taskId: String(row[bindings.task_key]),
    index,
    inputs: Object.fromEntries(inputColumns.map((c) => [c, row[c] ?? null])),
    expected: Object.fromEntries(outputColumns.map((c) => [c, row[c] ?? null])),
  }));
  const constPath = join(ddir, "embedded_tables.json");
  const domain: Domain = {
    name,
    dir: ddir,
    sop: readFileSync(join(ddir, "sop.txt"), "utf8"),
    metadata,
    toolSpecs,
    table,
    bindings,
    taskKey: bindings.task_key,
    inputColumns,
    outputColumns,
    tasks,
    ...(existsSync(constPath) ? { constants: readJson(constPath) as Record<string, unknown> } : {}),
  };
  cache.set(key, domain);
  return domain;
}
