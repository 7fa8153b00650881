import { nameOf } from "../../util/own.js";
import { type CNode, type Compact, isObj, parentOf, referencedIds } from "./compact-graph.js";
import type { RepairRecord } from "./types.js";

/**
 * Reorder nodes_info so every node comes after what it depends on (edges, tuple references,
 * `{{#…#}}` references; an iteration's output_selector may point forward), children right after
 * their iteration, start first and end last. Only the order changes, never a node or an edge.
 */
export function repairTopology(c: Compact): { compact: Compact; repairs: RepairRecord[] } {
  const nodes = c.nodes_info;
  const known = new Set(nodes.map((n) => n.id));
  // Order is a function of ids; with a duplicate id there is none to find (the converter reports it).
  if (known.size !== nodes.length) return { compact: c, repairs: [] };
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const deps = new Map<string, Set<string>>(nodes.map((n) => [n.id, new Set<string>()]));
  for (const n of nodes) {
    const param = n.type === "iteration" && isObj(n.param) ? { ...n.param, output_selector: undefined } : n.param;
    for (const d of referencedIds(param, known)) if (d !== n.id) deps.get(n.id)!.add(d);
  }
  for (const e of c.edges) {
    const [from, to] = Array.isArray(e) && e.length === 3 ? [nameOf(e[0]), nameOf(e[2])] : [];
    if (from !== undefined && to !== undefined && known.has(from) && known.has(to)) deps.get(to)!.add(from);
  }
  const unitOf = (id: string) => (parentOf(id) && known.has(parentOf(id)!) ? parentOf(id)! : id);
  const rank = (n: CNode) => (n.type === "start" ? -1 : n.type === "end" ? 1 : 0);

  // Order units (a top-level node with its children) by their dependencies on other units.
  const units = nodes.filter((n) => unitOf(n.id) === n.id);
  const unitDeps = new Map(units.map((u) => [u.id, new Set<string>()]));
  for (const n of nodes)
    for (const d of deps.get(n.id)!) if (unitOf(d) !== unitOf(n.id)) unitDeps.get(unitOf(n.id))?.add(unitOf(d));
  const order = (list: CNode[], depOf: (id: string) => Set<string>) => {
    const done = new Set<string>();
    const out: CNode[] = [];
    const pending = [...list].sort((a, b) => rank(a) - rank(b) || index.get(a.id)! - index.get(b.id)!);
    while (pending.length) {
      const i = pending.findIndex((n) => [...depOf(n.id)].every((d) => done.has(d) || !list.some((x) => x.id === d)));
      const pick = pending.splice(Math.max(i, 0), 1)[0]!; // a cycle keeps file order; the analyser reports it
      done.add(pick.id);
      out.push(pick);
    }
    return out;
  };
  const result: CNode[] = [];
  for (const u of order(units, (id) => unitDeps.get(id)!)) {
    result.push(u);
    const kids = nodes.filter((n) => n.id !== u.id && unitOf(n.id) === u.id);
    const sortedKids = order(kids, (id) => deps.get(id)!).sort((a, b) =>
      a.type === "iteration-start" ? -1 : b.type === "iteration-start" ? 1 : 0,
    );
    result.push(...sortedKids);
  }
  const changed = result.some((n, i) => n.id !== nodes[i]!.id);
  return {
    compact: { ...c, nodes_info: result },
    repairs: changed
      ? [
          {
            kind: "topology",
            detail: `reordered nodes_info into dependency order: ${result.map((n) => n.id).join(", ")}`,
          },
        ]
      : [],
  };
}
