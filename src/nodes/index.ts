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
import { startNode } from "./start.js";
import { templateTransformNode } from "./template-transform.js";
import { toolNode } from "./tool.js";
import { toolCallNode } from "./tool-call.js";
import { triggerPluginNode } from "./trigger-plugin.js";
import { triggerScheduleNode } from "./trigger-schedule.js";
import { triggerWebhookNode } from "./trigger-webhook.js";
import { variableAggregatorNode } from "./variable-aggregator.js";

/**
 * Every node type Weft knows, in the order lists show them (knowledge base, studio palette). A node file's
 * definition reaches the analyser, engine and makers only through this list: add it here.
 */
export const nodeDefinitions = [
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
] as const;

export const nodeCatalogue = new NodeCatalogue(nodeDefinitions);

export { NodeCatalogue, NodeCatalogueError } from "./catalogue.js";
