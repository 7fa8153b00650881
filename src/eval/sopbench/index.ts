export { CEILINGS, type Ceiling } from "./ceilings.js";
export { type Cell, type Dtype, pyStr, type Row, readTable, type Table } from "./csv.js";
export { DEFAULT_CORPUS_DIR, type Domain, domains, loadDomain, type Task } from "./dataset.js";
export { type CallRecord, type EnvOptions, PINNED_NOW, SopBenchEnv } from "./env.js";
export { SopBenchError, ToolCallError } from "./errors.js";
export { createSopBenchMcpServer } from "./mcp.js";
export { type PyValue, parsePyLiteral } from "./pyliteral.js";
export {
  type DomainReport,
  formatTaskInputs,
  type ScoreOptions,
  type Solver,
  scoreDomain,
  scoreDomains,
  type TaskInput,
} from "./run.js";
export type { ValidationMode } from "./schema.js";
export {
  aggregate,
  type DomainScore,
  lenientEqual,
  normalise,
  type RowScore,
  scoreRow,
  strictEqual,
} from "./scoring.js";
export { PROVIDER_PREFIX, providerIdOf, SopBenchToolService, toToolResult } from "./service.js";
