import { api } from "../api";
import { errText, useStore } from "../store";
import type { WfEdge, WfNode } from "../types";
import type { Point } from "./layout";

/** Where a new node goes: after a node (its port), into an edge (between its ends), or at a dropped point. */
export interface AddAt {
  after?: { id: string; port: string };
  intoEdge?: WfEdge;
  at?: Point;
}

/**
 * Adds a node of `type`, configured by the server's template for this app (its start node's first variable, the
 * configured model). Without `at` it has no position, so the canvas places it after its predecessor and pushes
 * later nodes aside (placement.ts); inserted into an edge it is wired between that edge's ends.
 */
export async function addNode(type: string, where: AddAt = {}): Promise<string | undefined> {
  const s = useStore.getState();
  const wf = s.draft;
  const info = s.nodeTypes.find((t) => t.type === type);
  if (!wf || !info) return undefined;
  let config: Record<string, unknown>;
  try {
    config = (await api<{ config: Record<string, unknown> }>("/api/node-template", { json: { type, workflow: wf } }))
      .config;
  } catch (e) {
    s.say("error", `could not add the node: ${errText(e)}`);
    return undefined;
  }
  const now = useStore.getState().draft;
  if (!now) return undefined;
  let n = now.nodes.length + 1;
  while (now.nodes.some((x) => x.id === String(n))) n++;
  const id = String(n);
  // Inserted next to a node inside an iteration or loop, it joins that node's container.
  const parentId = now.nodes.find((x) => x.id === (where.intoEdge?.source ?? where.after?.id))?.parentId;
  const node: WfNode = {
    id,
    type,
    title: info.label,
    config,
    ...(parentId ? { parentId } : {}),
    ...(where.at ? { canvas: { position: where.at } } : {}),
  };
  let edges = now.edges;
  const e = where.intoEdge;
  if (e && now.nodes.some((x) => x.id === e.source) && now.nodes.some((x) => x.id === e.target)) {
    const same = (x: WfEdge) => x.source === e.source && x.target === e.target && x.sourcePort === e.sourcePort;
    const port = useStore.getState().ports[id]?.[0] ?? "source";
    edges = [
      ...edges.filter((x) => !same(x)),
      { source: e.source, sourcePort: e.sourcePort, target: id },
      { source: id, sourcePort: port, target: e.target },
    ];
  } else if (where.after && now.nodes.some((x) => x.id === where.after!.id)) {
    edges = [...edges, { source: where.after.id, sourcePort: where.after.port, target: id }];
  }
  s.setDraft({ ...now, nodes: [...now.nodes, node], edges });
  s.select(id);
  return id;
}
