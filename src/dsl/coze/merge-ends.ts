import type { WorkflowNode } from "../../ir/workflow.js";
import { BranchAnalysis } from "./branches.js";
import { makeNode } from "./canvas.js";
import type { ExportContext } from "./context.js";
import { unsupported } from "./errors.js";
import { endParams, exitReturning } from "./nodes.js";
import type { ExportProblems } from "./problems.js";
import { type CozeEdge, type CozeNode, type CozeParam, EXIT_ID } from "./schema.js";

/** One end's output: the Coze parameter it becomes, and the top-level node whose run makes its value exist. */
interface Binding {
  end: WorkflowNode;
  param: CozeParam;
  producer: string;
}

type MergeGroup = { name: string; variables: CozeParam["input"][] };

/**
 * Several Dify end nodes (one per branch) -> one Coze Exit. Outputs bound the same way by every end
 * go straight to the Exit. Otherwise a Variable merge node takes, per output, the first non-null of
 * the ends' values; that equals Dify's answer only if, whichever end is reached, every value listed
 * before that end's own comes from a node that cannot run in the same execution (BranchAnalysis).
 * Values are ordered so that holds (the most widely shared producers last), and the export is
 * refused when it cannot.
 */
export function mergeEnds(
  ends: WorkflowNode[],
  ctx: ExportContext,
  cozeNodes: Map<string, CozeNode>,
  redirect: Map<string, string>,
  problems: ExportProblems,
  topEdges: CozeEdge[],
  x: number,
): CozeNode {
  const byName = bindingsByName(ends, ctx, problems);
  const same = [...byName.values()].every(
    (bs) =>
      bs.length === ends.length &&
      bs.every((b) => JSON.stringify(b.param.input) === JSON.stringify(bs[0]!.param.input)),
  );
  if (same) {
    for (const end of ends) redirect.set(end.id, EXIT_ID);
    return makeNode(EXIT_ID, exitReturning([...byName.values()].map((bs) => bs[0]!.param)), "End", "", { x, y: 0 });
  }

  const mergeGroups = orderedMergeGroups(byName, ends, ctx, problems);
  const mergeId = ctx.freshId();
  const outputs = mergeGroups.map((g) => {
    const first = g.variables[0]!;
    return { name: g.name, type: first.type, ...(first.schema ? { schema: first.schema as never } : {}) };
  });
  const merge = makeNode(
    mergeId,
    { type: "32", inputs: { mergeGroups }, outputs, ports: {} },
    "Merge end outputs",
    "One output per Dify end node output: the branch that ran wins.",
    { x, y: 0 },
  );
  cozeNodes.set(`__coze_merge_${mergeId}`, merge);
  for (const end of ends) redirect.set(end.id, mergeId);
  topEdges.push({ sourceNodeID: mergeId, targetNodeID: EXIT_ID });
  const params: CozeParam[] = mergeGroups.map((g) => {
    const first = g.variables[0]!;
    return {
      name: g.name,
      input: {
        type: first.type,
        ...(first.schema ? { schema: first.schema } : {}),
        value: { type: "ref", content: { source: "block-output", blockID: mergeId, name: g.name } },
      },
    };
  });
  return makeNode(EXIT_ID, exitReturning(params), "End", "", { x: x + 320, y: 0 });
}

/** Every end's outputs, grouped by output name. */
function bindingsByName(ends: WorkflowNode[], ctx: ExportContext, problems: ExportProblems): Map<string, Binding[]> {
  const byName = new Map<string, Binding[]>();
  for (const end of ends) {
    const params = problems.attempt(end, () => endParams(end, ctx));
    if (!params) continue;
    const sels = ((end.config.outputs ?? []) as Array<{ value_selector?: string[] }>).map(
      (o) => o.value_selector ?? [],
    );
    params.forEach((param, i) => {
      let producer = sels[i]?.[0] ?? "";
      // A value from inside a container exists once the container has run.
      for (let n = ctx.byId.get(producer); n?.parentId; n = ctx.byId.get(n.parentId)) producer = n.parentId;
      if (producer === "sys") producer = ctx.workflow.nodes.find((n) => n.type === "start")?.id ?? producer;
      byName.set(param.name, [...(byName.get(param.name) ?? []), { end, param, producer }]);
    });
  }
  return byName;
}

/**
 * Per output, its distinct values in the order the merge node tries them; an end whose value could be shadowed
 * by an earlier one that exists when that end is reached is a problem.
 */
function orderedMergeGroups(
  byName: Map<string, Binding[]>,
  ends: WorkflowNode[],
  ctx: ExportContext,
  problems: ExportProblems,
): MergeGroup[] {
  const startId = ctx.workflow.nodes.find((n) => n.type === "start")?.id ?? "";
  const branches = new BranchAnalysis(ctx.workflow, startId);
  // May `producer` have run in an execution that reaches `end`?
  const reaches = (producer: string, end: string) => !branches.exclusive(producer, end);
  const mergeGroups: MergeGroup[] = [];
  for (const [name, bindings] of byName) {
    // One variable per distinct value; ends sharing it are fine together.
    const distinct = new Map<string, { input: CozeParam["input"]; producer: string; ends: WorkflowNode[] }>();
    for (const b of bindings) {
      const key = JSON.stringify(b.param.input);
      const d = distinct.get(key);
      if (d) d.ends.push(b.end);
      else distinct.set(key, { input: b.param.input, producer: b.producer, ends: [b.end] });
    }
    const spread = (p: string) => ends.filter((e) => reaches(p, e.id)).length;
    const ordered = [...distinct.values()].sort((a, b) => spread(a.producer) - spread(b.producer));
    ordered.forEach((v, k) => {
      for (const end of v.ends) {
        const clash = ordered.slice(0, k).find((w) => reaches(w.producer, end.id));
        if (clash) {
          problems.attempt(end, () =>
            unsupported(
              `output "${name}": several end nodes return different values, and the value from node "${clash.producer}" can exist when this end is reached; Coze has a single exit, and merging them would return the wrong one`,
            ),
          );
        }
      }
    });
    mergeGroups.push({ name, variables: ordered.map((v) => v.input) });
  }
  return mergeGroups;
}
