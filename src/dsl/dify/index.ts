export { canvasTypeFor, completeForDify, containerKind } from "./canvas.js";
export { defaultFeatures } from "./defaults.js";
export { firstDifference, semanticEqual } from "./equal.js";
export { type ExportDifyOptions, exportDify, toDifyDocument } from "./export.js";
export { type ImportDifyOptions, type ImportDifyResult, importDify, MAX_DSL_BYTES } from "./import.js";
export { type DifyMeta, difyMetaOf } from "./meta.js";
export { ABSENT_DSL_VERSION, CURRENT_DSL_VERSION, DEFAULT_EXPORT_VERSION, parseDslVersion } from "./version.js";
export { readYaml, writeYaml } from "./yaml.js";
