import type { Diagnostic } from "../../ir/diagnostics.js";
import { answerTooLong, graphTooLarge } from "../../util/answer-limits.js";
import { MAX_JSON_DEPTH, tooDeepAt } from "../../util/json-depth.js";
import { asCompact, type Compact } from "./compact-graph.js";
import { parseModelJson } from "./json.js";
import { repairReferences } from "./references.js";
import { extractSections, extractSectionsStrict } from "./sections.js";
import { repairNodeSelection } from "./selection.js";
import { repairTopology } from "./topology.js";
import type { AnswerSections, RepairKind, RepairRecord } from "./types.js";

export { MAX_ANSWER_CHARS, MAX_ANSWER_EDGES, MAX_ANSWER_NODES } from "../../util/answer-limits.js";
export type { Compact } from "./compact-graph.js";
export { parseModelJson } from "./json.js";
export { repairReferences } from "./references.js";
export { extractSections, extractSectionsStrict, stripFences } from "./sections.js";
export { normaliseNodeName, parseNodeSelection, repairNodeSelection, usedTypes } from "./selection.js";
export { readNodeSelection, type SelectionReading } from "./selection-reader.js";
export { repairTopology } from "./topology.js";
export type { AnswerSections, RepairKind, RepairRecord } from "./types.js";

export interface ParsedAnswer {
  sections: AnswerSections;
  /** The workflow JSON, when it could be read as a compact workflow object. */
  compact?: Compact;
  /** What to convert: the parsed JSON as written (strict), or the repaired compact workflow. */
  json?: unknown;
  repairs: RepairRecord[];
  /** What could not be repaired (missing tags, unparsable JSON) — fed back to the model. */
  diagnostics: Diagnostic[];
}

/**
 * Read a model answer. Without `repair`, the strict reading the benchmark applies; with it, the
 * auto-repairs run in order — tags, fences, JSON syntax, references, topological order, node
 * selection — and each change is recorded.
 */
export function parseAnswer(text: string, opts: { repair?: boolean } = {}): ParsedAnswer {
  const repairs: RepairRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  // Tag and fence regexes and the JSON repairs scan the whole text, some more than once.
  const tooLong = answerTooLong(text);
  if (tooLong) {
    diagnostics.push({ code: "answer.too_large", severity: "error", field: "answer", message: tooLong });
    return { sections: {}, repairs, diagnostics };
  }
  let sections = readSections(text, opts.repair, repairs, diagnostics);
  if (sections.workflow === undefined) return { sections, repairs, diagnostics };
  const value = readWorkflowJson(sections.workflow, opts.repair, repairs, diagnostics);
  if (value === undefined) return { sections, repairs, diagnostics };
  const refused = oversizedGraph(value);
  if (refused) return { sections, repairs, diagnostics: [...diagnostics, refused] };
  let compact = asCompact(value);
  if (!compact) {
    diagnostics.push({
      code: "answer.not_workflow",
      severity: "error",
      field: "workflow",
      message: "the JSON is not an object with a nodes_info list",
    });
    return { sections, repairs, diagnostics };
  }
  if (opts.repair) {
    const repaired = repairGraph(compact, sections.nodeSelection, repairs);
    compact = repaired.compact;
    sections = { ...sections, nodeSelection: repaired.selection };
  }
  return { sections, compact, json: opts.repair ? compact : value, repairs, diagnostics };
}

/** The answer's sections (tags repaired when asked), and a diagnostic for each one missing. */
function readSections(
  text: string,
  repair: boolean | undefined,
  repairs: RepairRecord[],
  diagnostics: Diagnostic[],
): AnswerSections {
  let sections: AnswerSections;
  if (repair) {
    const r = extractSections(text);
    sections = r.sections;
    repairs.push(...r.repairs);
  } else sections = extractSectionsStrict(text);
  for (const [key, tag] of [
    ["nodeSelection", "node_selection"],
    ["designPrinciple", "design_principle"],
    ["workflow", "workflow"],
  ] as const) {
    if (sections[key] === undefined)
      diagnostics.push({
        code: "answer.missing_tag",
        severity: "error",
        field: tag,
        message: `the answer has no <${tag}> section`,
      });
  }
  return sections;
}

/** The workflow section's JSON: repaired when asked, else as strict JSON; undefined when it cannot be read. */
function readWorkflowJson(
  text: string,
  repair: boolean | undefined,
  repairs: RepairRecord[],
  diagnostics: Diagnostic[],
): unknown {
  if (repair) {
    const j = parseModelJson(text);
    repairs.push(...j.repairs);
    if (j.error) diagnostics.push({ code: "answer.bad_json", severity: "error", field: "workflow", message: j.error });
    return j.value;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    diagnostics.push({
      code: "answer.bad_json",
      severity: "error",
      field: "workflow",
      message: `not valid JSON: ${(e as Error).message}`,
    });
    return undefined;
  }
}

/**
 * Why the workflow JSON is refused before any repair: the repairs recurse over params (a runaway nesting), and
 * the structural repairs and the edit reader are super-linear in nodes and edges.
 */
function oversizedGraph(value: unknown): Diagnostic | undefined {
  const deep = tooDeepAt(value);
  if (deep)
    return {
      code: "answer.too_deep",
      severity: "error",
      field: "workflow",
      message: `the workflow JSON nests deeper than ${MAX_JSON_DEPTH} levels (at ${deep.slice(0, 120)}); a workflow needs about 12`,
    };
  const tooLarge = graphTooLarge(value);
  if (tooLarge) return { code: "answer.too_large", severity: "error", field: "workflow", message: tooLarge };
  return undefined;
}

/** The structural repairs in order: references, topological order, then the node selection against the graph. */
function repairGraph(
  compact: Compact,
  nodeSelection: string | undefined,
  repairs: RepairRecord[],
): { compact: Compact; selection: string } {
  const refs = repairReferences(compact);
  repairs.push(...refs.repairs);
  const topo = repairTopology(refs.compact);
  repairs.push(...topo.repairs);
  const sel = repairNodeSelection(nodeSelection, topo.compact);
  repairs.push(...sel.repairs);
  return { compact: topo.compact, selection: sel.selection };
}

export function repairKinds(records: readonly RepairRecord[]): Set<RepairKind> {
  return new Set(records.map((r) => r.kind));
}
