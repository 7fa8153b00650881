import type { ValueType } from "../ir/types.js";
import type { AnalysisGraph } from "./graph.js";
import { templateReads } from "./templates.js";

/** One value a node reads: a selector field, or a `{{#…#}}` reference in one of its texts. */
export interface Read {
  reader: number;
  selector: string[];
  field: string;
  expects?: ValueType;
  optional: boolean;
  template: boolean;
}

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
