/** Miner: task records → event log → DFG / process tree → skeleton → a Weft workflow that passes the analyser. */
import { analyse } from "../analysis/index.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { ToolSpec } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
import { type BuildOptions, buildWorkflow } from "./build.js";
import { type Dfg, type DfgFilter, discoverDfg, filterDfg, toEventLog } from "./dfg.js";
import { MineCodes, MineError } from "./errors.js";
import { inductiveMiner, type ProcessTree, treeToString } from "./inductive.js";
import type { TaskRecord } from "./records.js";
import { type Skeleton, skeletonFromTree } from "./skeleton.js";

export * from "./build.js";
export * from "./dfg.js";
export * from "./errors.js";
export * from "./inductive.js";
export * from "./records.js";
export * from "./skeleton.js";

export interface MineOptions extends BuildOptions {
  /** IMf noise threshold (0 = plain IM). */
  noise?: number;
  /** Drop trace variants seen fewer than this many times before mining (default 1 = keep all). */
  minVariantCount?: number;
  /** DFG filter applied to the reported DFG. */
  dfgFilter?: DfgFilter;
}

export interface MineResult {
  workflow: Workflow;
  tree: ProcessTree;
  treeText: string;
  dfg: Dfg;
  skeleton: Skeleton | null;
  diagnostics: Diagnostic[];
}

export function tracesOf(records: readonly TaskRecord[]): string[][] {
  return records.map((r) => r.calls.map((c) => c.tool));
}

export function mineWorkflow(records: readonly TaskRecord[], o: MineOptions): MineResult {
  if (records.length === 0) throw new MineError(MineCodes.logEmpty, "no task records to mine", {});
  let log = toEventLog(tracesOf(records));
  const minCount = o.minVariantCount ?? 1;
  if (minCount > 1) {
    log = log.filter((v) => v.count >= minCount);
    if (log.length === 0)
      throw new MineError(MineCodes.logEmpty, `no trace variant occurs ${minCount} times or more`, {
        field: "minVariantCount",
      });
  }
  const tree = inductiveMiner(log, { noise: o.noise ?? 0 });
  const skeleton = skeletonFromTree(tree);
  const workflow = buildWorkflow(skeleton, o);
  const { diagnostics } = analyse(workflow, nodeCatalogue);
  if (diagnostics.some((d) => d.severity === "error")) {
    throw new MineError(
      "mine.invalid_workflow",
      `the mined workflow does not pass the analyser: ${diagnostics
        .filter((d) => d.severity === "error")
        .map((d) => `${d.code} ${d.nodeId ?? ""} ${d.message}`)
        .join("; ")}`,
      {
        diagnostics,
      },
    );
  }
  let dfg = discoverDfg(log);
  if (o.dfgFilter) {
    dfg = filterDfg(dfg, o.dfgFilter);
  }
  return { workflow, tree, treeText: treeToString(tree), dfg, skeleton, diagnostics };
}

export function specsFromFunctions(data: unknown): ToolSpec[] {
  const list = Array.isArray(data)
    ? data
    : data && typeof data === "object" && Array.isArray((data as { tools?: unknown }).tools)
      ? (data as { tools: unknown[] }).tools
      : undefined;
  if (!list)
    throw new MineError(MineCodes.toolsInvalid, "tools: expected a list of {name, description, parameters}", {
      field: "tools",
    });
  return list.map((t, i) => {
    const o = (t && typeof t === "object" ? t : {}) as Record<string, unknown>;
    const f = (o.type === "function" && o.function && typeof o.function === "object" ? o.function : o) as Record<
      string,
      unknown
    >;
    if (typeof f.name !== "string" || f.name === "")
      throw new MineError(MineCodes.toolsInvalid, `tools[${i}]: a tool needs a string name`, {
        field: `tools[${i}].name`,
      });
    return {
      name: f.name,
      description: typeof f.description === "string" ? f.description : "",
      parameters:
        f.parameters && typeof f.parameters === "object"
          ? (f.parameters as Record<string, unknown>)
          : { type: "object", properties: {} },
    };
  });
}
