import type { Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";

/**
 * The output ports of every node, for the canvas: the registry's answer for a config it can parse, plus
 * `fail-branch` where the node's error strategy takes it, plus any port an edge already uses.
 */
export function portsOf(wf: Workflow): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const n of wf.nodes) {
    const def = nodeCatalogue.get(n.type);
    let ports: string[] = ["source"];
    if (def) {
      const parsed = def.configSchema.safeParse(n.config);
      if (parsed.success) {
        try {
          ports = def.ports(parsed.data, n);
        } catch {
          // An unusual config keeps the default port; the analyser reports what is wrong with it.
        }
      }
    }
    if (n.config.error_strategy === "fail-branch") ports = [...ports, "fail-branch"];
    out[n.id] = [...new Set(ports)];
  }
  for (const e of wf.edges) {
    const p = out[e.source];
    if (p && !p.includes(e.sourcePort)) p.push(e.sourcePort);
  }
  return out;
}
