/**
 * The deterministic pass-stage checks, one function per step. Each returns a StepResult whose
 * diagnostics say why it failed (stable `pass.*`, `answer.*`, `compact.*`, `dify.*` codes).
 */

import { analyse } from "../../analysis/index.js";
import { normaliseNodeName, type ParsedAnswer, readNodeSelection } from "../../authoring/repair/index.js";
import { compactToWorkflow } from "../../dsl/compact/index.js";
import { exportDify, importDify } from "../../dsl/dify/index.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { WeftError } from "../../ir/errors.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import type { PassCheck } from "./dataset.js";

export interface StepResult {
  ok: boolean;
  diagnostics: Diagnostic[];
}

const err = (code: string, message: string, extra: Partial<Diagnostic> = {}): Diagnostic => ({
  code,
  severity: "error",
  message,
  ...extra,
});
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const errorsOf = (d: readonly Diagnostic[]) => d.filter((x) => x.severity === "error");

/** step_1_1: the three tags are present and the workflow section parses as JSON. */
export function checkFormat(parsed: ParsedAnswer): StepResult {
  const diagnostics = parsed.diagnostics.filter((d) => d.code === "answer.missing_tag" || d.code === "answer.bad_json");
  return { ok: diagnostics.length === 0, diagnostics };
}

export interface ConvertResult extends StepResult {
  /** The workflow as Dify would hold it: compact → IR → Dify YAML → re-imported. */
  workflow?: Workflow;
  yaml?: string;
}

/**
 * The model Chat2Workflow's own converter writes into every LLM node of an answer (its
 * nodes/dify/basic/llm.py): the answers name none, and the resolve stage runs them on it (routed by the
 * eval's model configuration like any Dify provider).
 */
export const CHAT2WORKFLOW_NODE_MODEL = { provider: "langgenius/tongyi/tongyi", name: "qwen3-vl-plus" };

const MODEL_NODE_TYPES = new Set(["llm", "parameter-extractor", "question-classifier"]);

/**
 * Writes `params` into every model node that carries the converter's model (the answer named none), as
 * upstream's converter writes fixed completion params into each (R7, see src/eval/fidelity.ts).
 */
function withCompletionParams(workflow: Workflow, params: Record<string, unknown>): Workflow {
  const nodes = workflow.nodes.map((n) => {
    const model = (n.config as { model?: Record<string, unknown> } | undefined)?.model;
    if (!MODEL_NODE_TYPES.has(n.type) || !model) return n;
    if (model.provider !== CHAT2WORKFLOW_NODE_MODEL.provider || model.name !== CHAT2WORKFLOW_NODE_MODEL.name) return n;
    return { ...n, config: { ...n.config, model: { ...model, completion_params: { ...params } } } };
  });
  return { ...workflow, nodes } as Workflow;
}

/**
 * step_1_2: compact JSON → IR (no converter errors) → Dify YAML → re-import succeeds. `completionParams`
 * go into the model nodes the converter filled in (upstream fidelity); without them they carry none.
 */
export function checkConvert(
  json: unknown,
  name: string,
  opts: { completionParams?: Record<string, unknown>; upstreamConverter?: boolean } = {},
): ConvertResult {
  if (!isObj(json) || !Array.isArray(json.nodes_info)) {
    return {
      ok: false,
      diagnostics: [
        err("answer.not_workflow", "the workflow JSON is not an object with a nodes_info list", { field: "workflow" }),
      ],
    };
  }
  let converted: ReturnType<typeof compactToWorkflow>;
  try {
    converted = compactToWorkflow(json, {
      name,
      llmModel: CHAT2WORKFLOW_NODE_MODEL,
      ...(opts.upstreamConverter ? { upstreamConverter: true } : {}),
    });
  } catch (e) {
    // The converter reports problems as diagnostics; a throw means its output broke the IR schema.
    return {
      ok: false,
      diagnostics: [
        err(
          "compact.schema_failed",
          `the converted workflow breaks the IR schema: ${(e as Error).message.slice(0, 300)}`,
        ),
      ],
    };
  }
  const diagnostics = [...converted.diagnostics];
  if (!converted.workflow || errorsOf(diagnostics).length) return { ok: false, diagnostics };
  const workflow = opts.completionParams
    ? withCompletionParams(converted.workflow, opts.completionParams)
    : converted.workflow;
  let yaml: string;
  try {
    yaml = exportDify(workflow);
  } catch (e) {
    const code = e instanceof WeftError ? e.code : "unknown";
    return {
      ok: false,
      diagnostics: [...diagnostics, err("dify.export_failed", `Dify export failed (${code}): ${(e as Error).message}`)],
    };
  }
  try {
    const { workflow } = importDify(yaml, { nameHint: name });
    return { ok: true, diagnostics, workflow, yaml };
  } catch (e) {
    const code = e instanceof WeftError ? e.code : "unknown";
    return {
      ok: false,
      diagnostics: [
        ...diagnostics,
        err("dify.import_failed", `re-importing the exported YAML failed (${code}): ${(e as Error).message}`),
      ],
      yaml,
    };
  }
}

const names = (list: unknown): string[] =>
  Array.isArray(list) ? list.flatMap((x) => (Array.isArray(x) && x.length > 0 ? [String(x[0])] : [])) : [];
const show = (xs: readonly string[]) => `[${xs.join(", ")}]`;
const cmpLists = (a: string[], b: string[]) => a.join("\u0000").localeCompare(b.join("\u0000"));

/**
 * step_1_3: the first start node's variable names equal input_var as a set; the End nodes' sorted
 * output-name lists equal output_var (flat = exactly one End node; nested = a multiset of lists).
 */
export function checkVariables(json: unknown, check: PassCheck): StepResult {
  const nodes = isObj(json) && Array.isArray(json.nodes_info) ? json.nodes_info.filter(isObj) : [];
  const diagnostics: Diagnostic[] = [];
  const start = nodes.find((n) => n.type === "start");
  if (!start) diagnostics.push(err("pass.no_start", "the workflow has no start node"));
  else {
    const actual = [...new Set(names(isObj(start.param) ? start.param.variables : undefined))].sort();
    const expected = [...new Set(check.input_var)].sort();
    if (actual.join("\u0000") !== expected.join("\u0000")) {
      const missing = expected.filter((x) => !actual.includes(x));
      const extra = actual.filter((x) => !expected.includes(x));
      diagnostics.push(
        err(
          "pass.input_mismatch",
          `start inputs ${show(actual)} must be ${show(expected)}${missing.length ? `; missing ${show(missing)}` : ""}${extra.length ? `; unexpected ${show(extra)}` : ""}`,
          {
            nodeId: String(start.id),
            field: "variables",
          },
        ),
      );
    }
  }
  const ends = nodes.filter((n) => n.type === "end");
  const actualOut = ends.map((n) => names(isObj(n.param) ? n.param.outputs : undefined).sort()).sort(cmpLists);
  const nested = check.output_var.length > 0 && Array.isArray(check.output_var[0]);
  const expectedOut = (
    nested
      ? (check.output_var as string[][]).map((l) => [...l].sort())
      : check.output_var.length
        ? [[...(check.output_var as string[])].sort()]
        : []
  ).sort(cmpLists);
  if (!nested && ends.length !== 1) {
    diagnostics.push(
      err(
        "pass.end_count",
        `the instruction wants exactly one End node (outputs ${show(expectedOut[0] ?? [])}); the workflow has ${ends.length}`,
      ),
    );
  } else if (JSON.stringify(actualOut) !== JSON.stringify(expectedOut)) {
    diagnostics.push(
      err(
        "pass.output_mismatch",
        `End outputs ${actualOut.map(show).join(" | ") || "(none)"} must be ${expectedOut.map(show).join(" | ")}`,
        {
          nodeId: ends.length === 1 ? String(ends[0]!.id) : undefined,
          field: "outputs",
        },
      ),
    );
  }
  return { ok: diagnostics.length === 0, diagnostics };
}

/** Every listed item in a node_selection text that names no node type. */
export function unrecognisedNames(selection: string): string[] {
  return readNodeSelection(selection).unrecognised;
}

const typeKey = (t: string) => normaliseNodeName(t) ?? t.toLowerCase();

/**
 * The deterministic stand-in for step_1_4: node types declared in <node_selection> equal the types
 * used (both ways, start/end/iteration-start included), and every key node (related_nodes) is both
 * declared and used. Names match ignoring case and hyphens, with the aliases of normaliseNodeName.
 */
export function checkSelection(
  selection: string | undefined,
  json: unknown,
  related: readonly string[],
  /** Node types of the previous round's workflow, for selections written as a delta on it. */
  previous?: readonly string[],
): StepResult {
  const reading = readNodeSelection(selection ?? "", { previous });
  const declared = new Set(reading.declared);
  const nodes = isObj(json) && Array.isArray(json.nodes_info) ? json.nodes_info.filter(isObj) : [];
  const used = new Set(nodes.flatMap((n) => (typeof n.type === "string" ? [typeKey(n.type)] : [])));
  const diagnostics: Diagnostic[] = [];
  const undeclared = [...used].filter((t) => !declared.has(t));
  const unused = [...declared].filter((t) => !used.has(t));
  if (undeclared.length)
    diagnostics.push(
      err("pass.undeclared_type", `node types used but not declared in node_selection: ${undeclared.join(", ")}`, {
        field: "node_selection",
      }),
    );
  if (unused.length)
    diagnostics.push(
      err("pass.unused_type", `node types declared in node_selection but not used: ${unused.join(", ")}`, {
        field: "node_selection",
      }),
    );
  const keys = [...new Set(related.map(typeKey))];
  const notDeclared = keys.filter((k) => !declared.has(k));
  const notUsed = keys.filter((k) => !used.has(k));
  if (notDeclared.length)
    diagnostics.push(
      err("pass.key_node_undeclared", `key node types missing from node_selection: ${notDeclared.join(", ")}`, {
        field: "node_selection",
      }),
    );
  if (notUsed.length)
    diagnostics.push(
      err("pass.key_node_unused", `key node types the workflow does not use: ${notUsed.join(", ")}`, {
        field: "workflow",
      }),
    );
  const unknown = reading.unrecognised;
  if (unknown.length)
    diagnostics.push({
      code: "pass.unrecognised_name",
      severity: "info",
      field: "node_selection",
      message: `names in node_selection that are no node type: ${unknown.slice(0, 8).join(", ")}`,
    });
  return { ok: errorsOf(diagnostics).length === 0, diagnostics };
}

/** The stricter extra check: Weft's static analyser finds no error in the re-imported workflow. */
export function checkAnalyser(workflow: Workflow): StepResult {
  let diagnostics: Diagnostic[];
  try {
    diagnostics = analyse(workflow, nodeCatalogue).diagnostics;
  } catch (e) {
    diagnostics = [err("pass.analyser_crashed", `the analyser threw: ${(e as Error).message}`)];
  }
  const errors = errorsOf(diagnostics);
  return { ok: errors.length === 0, diagnostics: errors };
}
