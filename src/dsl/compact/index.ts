export { compactToWorkflow, irId, type CompactOptions, type CompactResult } from "./to-ir.js";
export { workflowToCompact, type CompactWorkflow } from "./from-ir.js";
export { variableSummary, formatVariableSummary, type VariableSummary } from "./summary.js";
export { ALL_COMPACT_TYPES, NATIVE_TYPES, TOOL_ALIASES, START_TYPES } from "./vocabulary.js";
