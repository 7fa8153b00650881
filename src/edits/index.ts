/**
 * The edit algebra: one set of graph edits, one meaning per kind, used by chat edits (as their wire
 * operations), the agent's edit tool and the optimiser. One file per kind; `remove_node` drops the node's
 * edges, `bypass_node` reconnects around it.
 */
export { EditError } from "./error.js";
export { type EditEdge, type EditEnv, type EditGraph, type EditNode, READER_WIRING, type Wiring } from "./graph.js";
export {
  applyToGraph,
  describeEdit,
  EDIT_KINDS,
  type Edit,
  type EditKindName,
  EditSchema,
  editSchemaOf,
  type ParsedEdit,
} from "./kinds.js";
export { applyEdit, applyEdits, type EditOutcome, type EditsOutcome, type WorkflowEditOptions } from "./workflow.js";
export { workflowWiring } from "./workflow-wiring.js";
