import type { StaticContext } from "../ir/registry.js";
import type { DiagnosticSink } from "./codes.js";
import { type AnalysisGraph, errText, ROOT } from "./graph.js";
import type { Resolver } from "./resolve.js";

/** Run each node type's own static rules (def.rules) on nodes whose config parsed. */
export function checkRules(g: AnalysisGraph, resolver: Resolver, sink: DiagnosticSink): void {
  for (const n of g.nodes) {
    if (!n.def?.rules || !n.desc.config) continue;
    const ctx: StaticContext = {
      workflow: g.workflow,
      node: n.node,
      nodeById: (id) => {
        const i = g.byId.get(id);
        return i === undefined ? undefined : g.nodes[i]!.node;
      },
      childrenOf: (containerId) => {
        const i = g.byId.get(containerId);
        const scope = i === undefined || i === ROOT ? undefined : g.scopes.get(i);
        return scope ? scope.members.map((m) => g.nodes[m]!.node) : [];
      },
      typeOf: (selector) => resolver.typeOf(n.idx, selector),
    };
    try {
      const diags = n.def.rules(n.desc.config, ctx);
      for (const d of Array.isArray(diags) ? diags : []) sink.push({ nodeId: n.id, ...d });
    } catch (e) {
      sink.add("analysis.rule_failed", `static rule of ${n.node.type} failed: ${errText(e)}`, { nodeId: n.id });
    }
  }
}
