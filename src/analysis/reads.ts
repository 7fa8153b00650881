import type { AnalysisGraph, Read } from "./graph.js";
import { templateReads } from "./templates.js";

/**
 * All reads of all nodes: declared inputs plus template references of Dify texts, deduplicated by
 * (field, selector) because node types often list a template's references as inputs too.
 */
export function collectReads(g: AnalysisGraph): Read[] {
  const out: Read[] = [];
  for (const n of g.nodes) {
    const seen = new Set<string>();
    const add = (r: Read) => {
      const k = `${r.field}\u0000${r.selector.join("\u0001")}`;
      if (seen.has(k)) return;
      seen.add(k);
      out.push(r);
    };
    for (const inp of Array.isArray(n.desc.inputs) ? n.desc.inputs : []) {
      if (!inp || !Array.isArray(inp.selector) || inp.selector.length === 0) continue;
      add({
        reader: n.idx,
        selector: inp.selector.map(String),
        field: typeof inp.field === "string" ? inp.field : "",
        expects: inp.expects,
        optional: inp.optional === true,
        template: inp.fromTemplate === true,
      });
    }
    for (const r of templateReads(n.idx, n.desc.texts)) add(r);
  }
  return out;
}
