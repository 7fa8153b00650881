/**
 * The configuration a node added from the palette starts with: the node type's example, made to fit the app it
 * is added to. Examples are written against a start node called `start` with a `query` variable and a fixed model;
 * here their references point at the app's actual start node and its first variable, and their model is the one
 * the server is configured with, so the new node starts valid.
 */
import { getNodeType } from "../ir/registry.js";
import type { Workflow } from "../ir/workflow.js";
import { ApiError } from "./errors.js";

/** A model as a node names it. */
type NodeModel = { provider: string; name: string };

/** The value a new node reads where its example reads `start.query`: the start node's first variable. */
function startValue(wf: Workflow): [string, string] | undefined {
  const start = wf.nodes.find((n) => n.type === "start" && !n.parentId);
  const first = (start?.config as { variables?: Array<{ variable?: unknown }> } | undefined)?.variables?.find(
    (v) => typeof v.variable === "string" && v.variable,
  );
  if (start && first) return [start.id, first.variable as string];
  // A chat app's start has no inputs of its own; every turn has the user's message.
  if (wf.mode === "advanced-chat") return ["sys", "query"];
  return undefined;
}

const isModel = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { provider?: unknown }).provider === "string";

/** Deep copy of `v` with start.query references and model choices replaced. */
function fit(v: unknown, ref: [string, string] | undefined, model: NodeModel | undefined, key = ""): unknown {
  if (typeof v === "string")
    return ref ? v.replaceAll("{{#start.query#}}", `{{#${ref[0]}.${ref[1]}#}}`) : v;
  if (Array.isArray(v)) {
    if (ref && v.length === 2 && v[0] === "start" && v[1] === "query") return [...ref];
    return v.map((x) => fit(x, ref, model));
  }
  if (typeof v !== "object" || v === null) return v;
  const obj = v as Record<string, unknown>;
  if (model && isModel(obj) && (key === "model" || key === "value")) {
    // The agent node's model names its field `model`, the others `name`.
    const nameKey = "name" in obj ? "name" : "model";
    return { ...obj, provider: model.provider, [nameKey]: model.name };
  }
  return Object.fromEntries(Object.entries(obj).map(([k, x]) => [k, fit(x, ref, model, k)]));
}

export function newNodeConfig(type: string, wf: Workflow, model?: NodeModel): Record<string, unknown> {
  const def = getNodeType(type);
  if (!def) throw new ApiError(400, "node.unknown_type", `there is no node type "${type}"; GET /api/node-types lists them`);
  return fit(structuredClone(def.example ?? {}), startValue(wf), model) as Record<string, unknown>;
}

