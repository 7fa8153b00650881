export { compactToWorkflow, irId, type CompactOptions, type CompactResult } from "./to-ir.js";
export { projectWorkflow, workflowToCompact, type CompactWorkflow, type CompactNode, type CompactEdge, type Projection } from "./project.js";
export { variableSummary, formatVariableSummary, type VariableSummary } from "./summary.js";
export { ALL_COMPACT_TYPES, NATIVE_TYPES, TOOL_ALIASES, START_TYPES } from "./vocabulary.js";
