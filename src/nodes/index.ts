import type { NodeTypeDef } from "../ir/registry.js";
import { agentNode } from "./agent.js";
import { answerNode } from "./answer.js";
import { assignerNode } from "./assigner.js";
import { NodeCatalogue } from "./catalogue.js";
import { codeNode } from "./code.js";
import { documentExtractorNode } from "./document-extractor.js";
import { endNode } from "./end.js";
import { httpRequestNode } from "./http-request.js";
import { humanInputNode } from "./human-input.js";
import { ifElseNode } from "./if-else.js";
import { iterationNode, iterationStartNode } from "./iteration.js";
import { knowledgeRetrievalNode } from "./knowledge-retrieval.js";
import { listOperatorNode } from "./list-operator.js";
import { llmNode } from "./llm.js";
import { loopEndNode, loopNode, loopStartNode } from "./loop.js";
import { parameterExtractorNode } from "./parameter-extractor.js";
import { questionClassifierNode } from "./question-classifier.js";
import { checkedDefinition, NODE_TYPES } from "./registry.js";
import { startNode } from "./start.js";
import { templateTransformNode } from "./template-transform.js";
import { toolNode } from "./tool.js";
import { toolCallNode } from "./tool-call.js";
import { triggerPluginNode } from "./trigger-plugin.js";
import { triggerScheduleNode } from "./trigger-schedule.js";
import { triggerWebhookNode } from "./trigger-webhook.js";
import { variableAggregatorNode } from "./variable-aggregator.js";

/**
 * Every node type Weft knows, loaded, in the registry's order (./registry.ts lists them). For what reads every
 * type (the knowledge base, the studio palette, the server); a run loads only its workflow's types
 * (`loadNodeTypes`), so importing this module is what loads them all.
 *
 * The definitions are imported statically, not through the registry's `load()`: this module must be usable
 * synchronously without a top-level await, which the CLI's CommonJS bundle cannot hold (scripts/build.mjs). Each
 * is checked against its registry entry, and the two lists must name the same types, so neither can drift.
 */
const LOADED: readonly NodeTypeDef<any>[] = [
  startNode,
  endNode,
  answerNode,
  ifElseNode,
  templateTransformNode,
  variableAggregatorNode,
  listOperatorNode,
  assignerNode,
  iterationNode,
  iterationStartNode,
  loopNode,
  loopStartNode,
  loopEndNode,
  llmNode,
  questionClassifierNode,
  parameterExtractorNode,
  httpRequestNode,
  knowledgeRetrievalNode,
  agentNode,
  codeNode,
  toolNode,
  documentExtractorNode,
  toolCallNode,
  humanInputNode,
  triggerWebhookNode,
  triggerScheduleNode,
  triggerPluginNode,
];

export const nodeDefinitions: readonly NodeTypeDef<any>[] = NODE_TYPES.map((e, i) => checkedDefinition(e, LOADED[i]));
if (LOADED.length !== NODE_TYPES.length) {
  const extra = LOADED.slice(NODE_TYPES.length).map((d) => d.type);
  throw new Error(`nodes/index.ts lists node types the registry does not: ${extra.join(", ")}`);
}

export const nodeCatalogue = new NodeCatalogue(nodeDefinitions);

export { NodeCatalogue, NodeCatalogueError } from "./catalogue.js";
export { loadNodeTypes, NODE_TYPES, NodeRegistryError, type NodeTypeEntry, nodeTypesFor } from "./registry.js";
