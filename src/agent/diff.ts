import type { Workflow } from "../ir/workflow.js";

export interface WorkflowDiff {
  nodesAdded: string[];
  nodesRemoved: string[];
  nodesChanged: string[];
  edgesAdded: string[];
  edgesRemoved: string[];
}

const edgeId = (e: Workflow["edges"][number]) => `${e.source}:${e.sourcePort}→${e.target}`;
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/** What changed between two versions: nodes by id (type, title, parent or config changed), edges by endpoints and port. */
export function diffWorkflows(before: Workflow | undefined, after: Workflow): WorkflowDiff {
  const a = new Map((before?.nodes ?? []).map((n) => [n.id, n]));
  const b = new Map(after.nodes.map((n) => [n.id, n]));
  const ea = new Set((before?.edges ?? []).map(edgeId));
  const eb = new Set(after.edges.map(edgeId));
  return {
    nodesAdded: [...b.keys()].filter((id) => !a.has(id)),
    nodesRemoved: [...a.keys()].filter((id) => !b.has(id)),
    nodesChanged: [...b.keys()].filter((id) => {
      const x = a.get(id);
      const y = b.get(id)!;
      return x && canonical({ t: x.type, ti: x.title, p: x.parentId, c: x.config }) !== canonical({ t: y.type, ti: y.title, p: y.parentId, c: y.config });
    }),
    edgesAdded: [...eb].filter((e) => !ea.has(e)),
    edgesRemoved: [...ea].filter((e) => !eb.has(e)),
  };
}

export function formatDiff(d: WorkflowDiff): string {
  const part = (label: string, xs: string[]) => (xs.length ? `${label}: ${xs.join(", ")}` : "");
  return (
    [part("+nodes", d.nodesAdded), part("-nodes", d.nodesRemoved), part("~nodes", d.nodesChanged), part("+edges", d.edgesAdded), part("-edges", d.edgesRemoved)]
      .filter(Boolean)
      .join("\n") || "no changes"
  );
}
