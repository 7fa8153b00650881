/**
 * What a node added by an edit gets from the workflow it joins: an id in the file's own style, and a
 * place on the canvas next to the node it follows.
 */
import type { Workflow, WorkflowNode } from "../../ir/workflow.js";
import { isPlainObject } from "../../util/json.js";

type IdStyle = "timestamp" | "number" | "word";

function styleOf(ids: string[]): IdStyle {
  const numeric = ids.filter((id) => /^\d+$/.test(id));
  if (ids.length === 0 || numeric.length * 2 < ids.length) return ids.length === 0 ? "number" : "word";
  return numeric.some((id) => id.length >= 10) ? "timestamp" : "number";
}

/**
 * Issues fresh node ids. Dify files number nodes by creation time (13 digits), Weft's generated files
 * 1, 2, 3 (and `3_1` inside a container), hand-written ones use words (`llm`, `llm_2`); a new id follows
 * whichever the file uses and never repeats one, even of a node removed in the same edit.
 */
export class IdIssuer {
  private readonly taken: Set<string>;
  private readonly style: IdStyle;
  private next: bigint;

  constructor(private readonly base: Workflow) {
    const top = base.nodes.filter((n) => n.parentId === undefined).map((n) => n.id);
    this.taken = new Set(base.nodes.map((n) => n.id));
    this.style = styleOf(top);
    const numbers = base.nodes.filter((n) => /^\d+$/.test(n.id) && n.id.length < 30).map((n) => BigInt(n.id));
    let highest = 0n;
    for (const b of numbers) if (b > highest) highest = b;
    this.next = highest + 1n;
  }

  /** A new id for a node of `type`; `parentId` is its container, `hint` the id the answer gave it. */
  issue(type: string, parentId?: string, hint?: string): string {
    if (this.base.nodes.length === 0 && hint && /^[A-Za-z0-9_]+$/.test(hint) && !this.taken.has(hint))
      return this.take(hint);
    if (parentId !== undefined && this.childStyle(parentId)) {
      let k = 1;
      while (this.taken.has(`${parentId}_${k}`)) k++;
      return this.take(`${parentId}_${k}`);
    }
    if (this.style === "word") {
      const slug = type.replace(/[^A-Za-z0-9_]/g, "_") || "node";
      if (!this.taken.has(slug)) return this.take(slug);
      let k = 2;
      while (this.taken.has(`${slug}_${k}`)) k++;
      return this.take(`${slug}_${k}`);
    }
    while (this.taken.has(String(this.next))) this.next++;
    return this.take(String(this.next++));
  }

  /** Weft's own files name a container's children `<container>_<k>`. */
  private childStyle(parentId: string): boolean {
    const numbered = (n: WorkflowNode) =>
      n.parentId !== undefined && n.id.startsWith(`${n.parentId}_`) && /^\d+$/.test(n.id.slice(n.parentId.length + 1));
    return this.base.nodes.length === 0 || this.base.nodes.some(numbered) || !parentId;
  }

  private take(id: string): string {
    this.taken.add(id);
    return id;
  }
}

const STEP_X = 340;
const STEP_Y = 130;

const positionOf = (n: WorkflowNode | undefined) => {
  const p = n?.canvas?.position;
  return isPlainObject(p) && typeof p.x === "number" && typeof p.y === "number" ? { x: p.x, y: p.y } : undefined;
};

/**
 * Put each new node one step right of the node it follows (or left of the one it leads to), below any
 * node already there. A workflow without positions gets none: the Dify export lays it out.
 */
export function placeNewNodes(wf: Workflow, added: ReadonlySet<string>): Workflow {
  if (added.size === 0 || !wf.nodes.some((n) => !added.has(n.id) && positionOf(n))) return wf;
  const byId = new Map(wf.nodes.map((n) => [n.id, n]));
  const occupied = wf.nodes.flatMap((n) =>
    added.has(n.id) ? [] : [{ parent: n.parentId, ...positionOf(n)! }].filter((p) => p.x !== undefined),
  );
  const free = (parent: string | undefined, x: number, y: number) => {
    let yy = y;
    // A card is about 240 × 90 on the canvas: anything closer than a step down would overlap it.
    while (occupied.some((o) => o.parent === parent && Math.abs(o.x - x) < STEP_X * 0.8 && Math.abs(o.y - yy) < STEP_Y))
      yy += STEP_Y;
    return { x, y: yy };
  };
  const nodes = wf.nodes.map((n) => {
    if (!added.has(n.id)) return n;
    const pred = wf.edges
      .filter((e) => e.target === n.id)
      .map((e) => byId.get(e.source))
      .find((x) => positionOf(x));
    const succ = wf.edges
      .filter((e) => e.source === n.id)
      .map((e) => byId.get(e.target))
      .find((x) => positionOf(x));
    const anchor = positionOf(pred) ?? positionOf(succ);
    const lowest = Math.max(...occupied.filter((o) => o.parent === n.parentId).map((o) => o.y), 0);
    const at = anchor
      ? free(n.parentId, anchor.x + (pred && positionOf(pred) ? STEP_X : -STEP_X), anchor.y)
      : free(n.parentId, 80, lowest + STEP_Y);
    occupied.push({ parent: n.parentId, ...at });
    return { ...n, canvas: { ...(n.canvas ?? {}), position: at } };
  });
  return { ...wf, nodes };
}
