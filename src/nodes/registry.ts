import { WeftError } from "../ir/errors.js";
import type { NodeTypeDef } from "../ir/registry.js";
import { NodeCatalogue } from "./catalogue.js";

/**
 * One node type of the registry: its name, the legacy names it answers to, and how to load its definition.
 * Only this much is known before a definition is loaded; the definition file (schema, rules, executor) is
 * imported on first use, so a run loads the node types its workflow uses and no others (`weft run` start-up).
 */
export interface NodeTypeEntry {
  type: string;
  /** Must equal the definition's `aliases` (checked when it loads): they resolve a name without loading. */
  aliases?: readonly string[];
  load(): Promise<NodeTypeDef<any>>;
}

/** A loaded definition disagrees with its registry entry on its type or aliases (`node.registry_mismatch`). */
export class NodeRegistryError extends WeftError {}

/**
 * Every node type Weft knows, in the order lists show them (knowledge base, studio palette). A node file's
 * definition reaches the analyser, engine and makers only through this list: add it here.
 */
export const NODE_TYPES: readonly NodeTypeEntry[] = [
  { type: "start", load: async () => (await import("./start.js")).startNode },
  { type: "end", load: async () => (await import("./end.js")).endNode },
  { type: "answer", load: async () => (await import("./answer.js")).answerNode },
  { type: "if-else", load: async () => (await import("./if-else.js")).ifElseNode },
  { type: "template-transform", load: async () => (await import("./template-transform.js")).templateTransformNode },
  {
    type: "variable-aggregator",
    aliases: ["variable-assigner"],
    load: async () => (await import("./variable-aggregator.js")).variableAggregatorNode,
  },
  { type: "list-operator", load: async () => (await import("./list-operator.js")).listOperatorNode },
  { type: "assigner", load: async () => (await import("./assigner.js")).assignerNode },
  { type: "iteration", load: async () => (await import("./iteration.js")).iterationNode },
  { type: "iteration-start", load: async () => (await import("./iteration.js")).iterationStartNode },
  { type: "loop", load: async () => (await import("./loop.js")).loopNode },
  { type: "loop-start", load: async () => (await import("./loop.js")).loopStartNode },
  { type: "loop-end", load: async () => (await import("./loop.js")).loopEndNode },
  { type: "llm", load: async () => (await import("./llm.js")).llmNode },
  {
    type: "question-classifier",
    load: async () => (await import("./question-classifier.js")).questionClassifierNode,
  },
  {
    type: "parameter-extractor",
    load: async () => (await import("./parameter-extractor.js")).parameterExtractorNode,
  },
  { type: "http-request", load: async () => (await import("./http-request.js")).httpRequestNode },
  {
    type: "knowledge-retrieval",
    load: async () => (await import("./knowledge-retrieval.js")).knowledgeRetrievalNode,
  },
  { type: "agent", load: async () => (await import("./agent.js")).agentNode },
  { type: "code", load: async () => (await import("./code.js")).codeNode },
  { type: "tool", load: async () => (await import("./tool.js")).toolNode },
  {
    type: "document-extractor",
    load: async () => (await import("./document-extractor.js")).documentExtractorNode,
  },
  { type: "tool-call", load: async () => (await import("./tool-call.js")).toolCallNode },
  { type: "human-input", load: async () => (await import("./human-input.js")).humanInputNode },
  { type: "trigger-webhook", load: async () => (await import("./trigger-webhook.js")).triggerWebhookNode },
  { type: "trigger-schedule", load: async () => (await import("./trigger-schedule.js")).triggerScheduleNode },
  { type: "trigger-plugin", load: async () => (await import("./trigger-plugin.js")).triggerPluginNode },
];

/** Each entry by its type and by its aliases. */
function byNameOf(entries: readonly NodeTypeEntry[]): Map<string, NodeTypeEntry> {
  const byName = new Map<string, NodeTypeEntry>();
  for (const e of entries) for (const name of [e.type, ...(e.aliases ?? [])]) byName.set(name, e);
  return byName;
}
const registryByName = byNameOf(NODE_TYPES);

/** Definitions are constants: each entry is loaded (and checked) once per process, then shared. */
const loaded = new Map<NodeTypeEntry, Promise<NodeTypeDef<any>>>();

function loadEntry(e: NodeTypeEntry): Promise<NodeTypeDef<any>> {
  let p = loaded.get(e);
  if (!p) {
    p = checkedLoad(e);
    loaded.set(e, p);
    // A failed load (a file that throws) is tried again next time rather than remembered.
    p.catch(() => loaded.delete(e));
  }
  return p;
}

/** The entry's definition, checked to be the type (and aliases) the entry announced. */
async function checkedLoad(e: NodeTypeEntry): Promise<NodeTypeDef<any>> {
  return checkedDefinition(e, await e.load());
}

/** `def`, checked to be the type (and aliases) the entry `e` announced (`node.registry_mismatch` if not). */
export function checkedDefinition(e: NodeTypeEntry, def: NodeTypeDef<any> | undefined): NodeTypeDef<any> {
  const same = (a: readonly string[] = [], b: readonly string[] = []) =>
    a.length === b.length && a.every((x, i) => x === b[i]);
  if (def?.type !== e.type || !same(def.aliases, e.aliases)) {
    throw new NodeRegistryError(
      "node.registry_mismatch",
      `the registry entry ${e.type} loaded the definition of ${def?.type ?? "no node type"} with other aliases`,
      { type: e.type, loaded: def?.type },
    );
  }
  return def;
}

/**
 * A catalogue of the node types `names` (types or aliases, e.g. a workflow's node types) name, with the
 * types those definitions reach (a container's body-start type, a body-start's container), in registry order.
 * Names no type answers to are left out, so they read as unknown types just as against the full catalogue:
 * analysing or running a workflow against it is the same as against every type. `entries`: tests' own registry.
 */
export async function loadNodeTypes(
  names: Iterable<string>,
  entries: readonly NodeTypeEntry[] = NODE_TYPES,
): Promise<NodeCatalogue> {
  const byName = entries === NODE_TYPES ? registryByName : byNameOf(entries);
  const wanted = new Set<NodeTypeEntry>();
  const defs = new Map<NodeTypeEntry, NodeTypeDef<any>>();
  const add = (name: string | undefined) => {
    const e = name === undefined ? undefined : byName.get(name);
    if (e) wanted.add(e);
  };
  for (const n of names) add(n);
  while (defs.size < wanted.size) {
    const pending = [...wanted].filter((e) => !defs.has(e));
    const got = await Promise.all(pending.map(loadEntry));
    for (const [i, e] of pending.entries()) defs.set(e, got[i]!);
    for (const d of got) {
      add(d.container?.startType);
      add(d.containerStart?.containerType);
    }
  }
  return new NodeCatalogue(entries.filter((e) => defs.has(e)).map((e) => defs.get(e)!));
}

/** Catalogues by the set of type names asked; a server runs few distinct sets, so this stays small. */
const catalogues = new Map<string, Promise<NodeCatalogue>>();
const MAX_CATALOGUES = 256;

/**
 * The catalogue a workflow is analysed and run against: the types of its nodes (bodies included). The engine
 * asks for it on every run, so the catalogue of a set of names is built once (a catalogue is immutable).
 */
export function nodeTypesFor(workflow: { nodes: readonly { type: string }[] }): Promise<NodeCatalogue> {
  const names = [...new Set(workflow.nodes.map((n) => n.type))].sort();
  const key = names.join("\n");
  let c = catalogues.get(key);
  if (!c) {
    if (catalogues.size >= MAX_CATALOGUES) catalogues.clear();
    c = loadNodeTypes(names);
    catalogues.set(key, c);
    c.catch(() => catalogues.delete(key));
  }
  return c;
}
