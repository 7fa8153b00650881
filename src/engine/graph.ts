import type { NodeTypes } from "../ir/registry.js";
import type { Workflow, WorkflowEdge, WorkflowNode } from "../ir/workflow.js";

/** Per-scope indices the scheduler needs: which nodes live in a frame and the edges among them. */
export class GraphIndex {
  readonly byId = new Map<string, WorkflowNode>();
  readonly children = new Map<string | null, WorkflowNode[]>();
  readonly out = new Map<string, WorkflowEdge[]>();
  readonly in = new Map<string, WorkflowEdge[]>();

  constructor(readonly workflow: Workflow) {
    for (const n of workflow.nodes) {
      this.byId.set(n.id, n);
      const scope = n.parentId ?? null;
      const list = this.children.get(scope) ?? [];
      list.push(n);
      this.children.set(scope, list);
    }
    for (const e of workflow.edges) {
      const s = this.byId.get(e.source);
      const t = this.byId.get(e.target);
      // Edges across scopes or between a container and its own start are not control flow.
      if (!s || !t || (s.parentId ?? null) !== (t.parentId ?? null)) continue;
      (this.out.get(e.source) ?? this.out.set(e.source, []).get(e.source)!).push(e);
      (this.in.get(e.target) ?? this.in.set(e.target, []).get(e.target)!).push(e);
    }
  }

  /**
   * The index of a workflow, built once per workflow object: many runs of one workflow (a server's published
   * version, a batch) share it. The IR is not changed once built; a workflow whose node or edge list was
   * replaced or grew since is indexed again.
   */
  static of(workflow: Workflow): GraphIndex {
    const hit = indices.get(workflow);
    if (
      hit &&
      hit.nodes === workflow.nodes &&
      hit.edges === workflow.edges &&
      hit.nodeCount === workflow.nodes.length &&
      hit.edgeCount === workflow.edges.length
    )
      return hit.index;
    const index = new GraphIndex(workflow);
    indices.set(workflow, {
      index,
      nodes: workflow.nodes,
      edges: workflow.edges,
      nodeCount: workflow.nodes.length,
      edgeCount: workflow.edges.length,
    });
    return index;
  }

  scopeNodes(scope: string | null): WorkflowNode[] {
    return this.children.get(scope) ?? [];
  }

  /** The body's entry: start_node_id, else the child of the container's start type, else a legacy first child. */
  bodyStart(container: WorkflowNode, types: NodeTypes): string | undefined {
    const kids = this.scopeNodes(container.id);
    const startType = types.get(container.type)?.container?.startType;
    const declared = typeof container.config.start_node_id === "string" ? container.config.start_node_id : "";
    if (declared && kids.some((k) => k.id === declared)) return declared;
    return (
      kids.find((k) => k.type === startType)?.id ??
      kids.find((k) => k.config.isIterationStart === true || k.config.isLoopStart === true)?.id ??
      kids.find((k) => (this.in.get(k.id) ?? []).length === 0)?.id
    );
  }

  topStart(types: NodeTypes): string | undefined {
    return this.scopeNodes(null).find((n) => types.get(n.type)?.entry)?.id;
  }
}

const indices = new WeakMap<
  Workflow,
  { index: GraphIndex; nodes: WorkflowNode[]; edges: WorkflowEdge[]; nodeCount: number; edgeCount: number }
>();

export function edgeKey(e: WorkflowEdge): string {
  return `${e.source}\u0000${e.sourcePort}\u0000${e.target}`;
}
