export { type ExportCozeOptions } from "./context.js";
export { type CozeProblem, CozeExportError } from "./errors.js";
export { type CozeExportResult, exportCoze, exportCozeDetailed } from "./export.js";
export {
  type CozeCanvas,
  type CozeEdge,
  type CozeNode,
  CanvasSchema,
  COZE_NODE_TYPES,
  ENTRY_ID,
  EXIT_ID,
  parseCanvas,
} from "./schema.js";
