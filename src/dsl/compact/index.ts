export {
  type CompactEdge,
  type CompactNode,
  type CompactWorkflow,
  type Projection,
  projectWorkflow,
  workflowToCompact,
} from "./project.js";
export { formatVariableSummary, type VariableSummary, variableSummary } from "./summary.js";
export { type CompactOptions, type CompactResult, compactToWorkflow, irId } from "./to-ir.js";
export { ALL_COMPACT_TYPES, NATIVE_TYPES, START_TYPES, TOOL_ALIASES } from "./vocabulary.js";
