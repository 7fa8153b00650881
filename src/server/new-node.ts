/**
 * The configuration a node added from the palette starts with: the node type's example, made to fit the app it
 * is added to. Examples are written against a start node called `start` with a `query` variable and a fixed model;
 * here their references point at the app's actual start node and its first variable, and their model is the one
 * the server is configured with, so the new node starts valid. Examples that read an LLM's `text` (`llm.text`,
 * `llm_a.text`) read the start value too when the app has no such node: a string as `text` is, and no reference
 * to a node that is not there.
 */

import type { Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
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
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  typeof (v as { provider?: unknown }).provider === "string";

/** What an example's references are fitted to: the start value, the model, the app's node ids. */
interface Fitting {
  ref: [string, string] | undefined;
  model: NodeModel | undefined;
  ids: Set<string>;
}

/** The example reads start.query, or the `text` of a node this app does not have. */
function readsStartValue(node: string, name: string, ids: Set<string>): boolean {
  return (
    (node === "start" && name === "query") ||
    (name === "text" && !ids.has(node) && !["sys", "env", "conversation"].includes(node))
  );
}

/** Deep copy of `v` with start.query (and absent nodes' text) references and model choices replaced. */
function fitValue(v: unknown, f: Fitting, key = ""): unknown {
  const { ref, model } = f;
  if (typeof v === "string")
    return ref
      ? v.replace(/\{\{#([\w-]+)\.(\w+)#\}\}/g, (all, node: string, name: string) =>
          readsStartValue(node, name, f.ids) ? `{{#${ref[0]}.${ref[1]}#}}` : all,
        )
      : v;
  if (Array.isArray(v)) {
    if (
      ref &&
      v.length === 2 &&
      typeof v[0] === "string" &&
      typeof v[1] === "string" &&
      readsStartValue(v[0], v[1], f.ids)
    )
      return [...ref];
    return v.map((x) => fitValue(x, f));
  }
  if (typeof v !== "object" || v === null) return v;
  const obj = v as Record<string, unknown>;
  if (model && isModel(obj) && (key === "model" || key === "value")) {
    // The agent node's model names its field `model`, the others `name`.
    const nameKey = "name" in obj ? "name" : "model";
    return { ...obj, provider: model.provider, [nameKey]: model.name };
  }
  return Object.fromEntries(Object.entries(obj).map(([k, x]) => [k, fitValue(x, f, k)]));
}

export function newNodeConfig(type: string, wf: Workflow, model?: NodeModel): Record<string, unknown> {
  const def = nodeCatalogue.get(type);
  if (!def)
    throw new ApiError(400, "node.unknown_type", `there is no node type "${type}"; GET /api/node-types lists them`);
  const ids = new Set(wf.nodes.map((n) => n.id));
  return fitValue(structuredClone(def.example ?? {}), { ref: startValue(wf), model, ids }) as Record<string, unknown>;
}
