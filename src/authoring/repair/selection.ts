import { own } from "../../util/own.js";
import type { Compact } from "./compact-graph.js";
import { DISPLAY } from "./node-names.js";
import { readNodeSelection } from "./selection-reader.js";
import type { RepairRecord } from "./types.js";

export { normaliseNodeName } from "./node-names.js";

/** The node types a `<node_selection>` text declares (see selection-reader.ts for the shapes read). */
export function parseNodeSelection(text: string, opts: { previous?: readonly string[] } = {}): string[] {
  return readNodeSelection(text, opts).declared;
}

export function usedTypes(c: Compact): string[] {
  return [...new Set(c.nodes_info.map((n) => n.type))];
}

/** Rewrite <node_selection> to exactly the node types the workflow uses, recording what was added or removed. */
export function repairNodeSelection(
  selection: string | undefined,
  c: Compact,
): { selection: string; repairs: RepairRecord[] } {
  const declared = new Set(parseNodeSelection(selection ?? ""));
  const used = usedTypes(c);
  const missing = used.filter((t) => !declared.has(t));
  const extra = [...declared].filter((t) => !used.includes(t));
  const text = used.map((t) => own(DISPLAY, t) ?? t).join(", ");
  if (!missing.length && !extra.length) return { selection: selection ?? text, repairs: [] };
  const parts = [
    missing.length ? `added ${missing.join(", ")}` : "",
    extra.length ? `removed ${extra.join(", ")}` : "",
  ].filter(Boolean);
  return { selection: text, repairs: [{ kind: "selection", detail: `node_selection ${parts.join("; ")}` }] };
}
