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
  let sections: AnswerSections;
  if (opts.repair) {
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
  if (sections.workflow === undefined) return { sections, repairs, diagnostics };
  let value: unknown;
  if (opts.repair) {
    const j = parseModelJson(sections.workflow);
    repairs.push(...j.repairs);
    if (j.error) diagnostics.push({ code: "answer.bad_json", severity: "error", field: "workflow", message: j.error });
    value = j.value;
  } else {
    try {
      value = JSON.parse(sections.workflow);
    } catch (e) {
      diagnostics.push({
        code: "answer.bad_json",
        severity: "error",
        field: "workflow",
        message: `not valid JSON: ${(e as Error).message}`,
      });
    }
  }
  if (value === undefined) return { sections, repairs, diagnostics };
  // The repairs below recurse over params; refuse a runaway nesting before they do.
  const deep = tooDeepAt(value);
  if (deep) {
    diagnostics.push({
      code: "answer.too_deep",
      severity: "error",
      field: "workflow",
      message: `the workflow JSON nests deeper than ${MAX_JSON_DEPTH} levels (at ${deep.slice(0, 120)}); a workflow needs about 12`,
    });
    return { sections, repairs, diagnostics };
  }
  // The structural repairs and the edit reader are super-linear in nodes and edges.
  const tooLarge = graphTooLarge(value);
  if (tooLarge) {
    diagnostics.push({ code: "answer.too_large", severity: "error", field: "workflow", message: tooLarge });
    return { sections, repairs, diagnostics };
  }
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
    const refs = repairReferences(compact);
    repairs.push(...refs.repairs);
    const topo = repairTopology(refs.compact);
    repairs.push(...topo.repairs);
    compact = topo.compact;
    const sel = repairNodeSelection(sections.nodeSelection, compact);
    repairs.push(...sel.repairs);
    sections = { ...sections, nodeSelection: sel.selection };
  }
  return { sections, compact, json: opts.repair ? compact : value, repairs, diagnostics };
}

export function repairKinds(records: readonly RepairRecord[]): Set<RepairKind> {
  return new Set(records.map((r) => r.kind));
}
