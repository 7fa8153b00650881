export type { ExportCozeOptions } from "./context.js";
export { CozeExportError, type CozeProblem } from "./errors.js";
export { type CozeExportResult, exportCoze, exportCozeDetailed } from "./export.js";
export { COZE_FLOW_FILE_TYPE, type CozeFlowFile, toCozeFlowFile } from "./flow.js";
export {
  CanvasSchema,
  COZE_NODE_TYPES,
  type CozeCanvas,
  type CozeEdge,
  type CozeNode,
  ENTRY_ID,
  EXIT_ID,
  parseCanvas,
} from "./schema.js";
