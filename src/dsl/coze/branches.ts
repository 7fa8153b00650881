import type { Workflow } from "../../ir/workflow.js";

/** More paths than this to one node and the analysis gives up (answers "may both run"). */
const MAX_PATHS = 2000;

type Choices = Map<string, string>;

/**
 * Which top-level nodes can never both run in one execution. A node whose outgoing edges leave from
 * several different ports (if-else cases, classifier classes, source vs fail-branch) takes exactly
 * one of them; edges from one port are all taken. A node runs when some path from the start reaches
 * it with every choice on the way taken, so two nodes can both run iff some path to each makes the
 * same choice at every choice node both paths pass. Loops and over-large path sets count as "may".
 */
export class BranchAnalysis {
  private readonly succ = new Map<string, Array<{ port: string; target: string }>>();
  private readonly choiceNodes = new Set<string>();
  private readonly pathCache = new Map<string, Choices[] | undefined>();

  constructor(
    workflow: Workflow,
    private readonly startId: string,
  ) {
    const top = new Set(workflow.nodes.filter((n) => !n.parentId).map((n) => n.id));
    for (const id of top) this.succ.set(id, []);
    for (const e of workflow.edges) {
      if (top.has(e.source) && top.has(e.target))
        this.succ.get(e.source)!.push({ port: e.sourcePort, target: e.target });
    }
    for (const [id, out] of this.succ) if (new Set(out.map((o) => o.port)).size > 1) this.choiceNodes.add(id);
  }

  /** The choices of every path from the start to `target`, or undefined when there are too many. */
  private paths(target: string): Choices[] | undefined {
    if (this.pathCache.has(target)) return this.pathCache.get(target);
    const out: Choices[] = [];
    let overflow = false;
    const onPath = new Set<string>();
    const walk = (id: string, choices: Choices): void => {
      if (overflow) return;
      if (id === target) {
        out.push(new Map(choices));
        if (out.length > MAX_PATHS) overflow = true;
        return;
      }
      if (onPath.has(id)) {
        overflow = true; // a cycle: not a DAG, give up
        return;
      }
      onPath.add(id);
      for (const s of this.succ.get(id) ?? []) {
        const choice = this.choiceNodes.has(id);
        if (choice) choices.set(id, s.port);
        walk(s.target, choices);
        if (choice) choices.delete(id);
      }
      onPath.delete(id);
    };
    walk(this.startId, new Map());
    const result = overflow ? undefined : out;
    this.pathCache.set(target, result);
    return result;
  }

  exclusive(a: string, b: string): boolean {
    if (a === b) return false;
    const pa = this.paths(a);
    const pb = this.paths(b);
    if (!pa || !pb || pa.length === 0 || pb.length === 0) return false;
    for (const x of pa) {
      for (const y of pb) {
        let consistent = true;
        for (const [node, port] of x) {
          const other = y.get(node);
          if (other !== undefined && other !== port) {
            consistent = false;
            break;
          }
        }
        if (consistent) return false;
      }
    }
    return true;
  }
}
