/** SOP compiler: natural-language procedure → verified artifact-driven workflow (Weft IR). */
export {
  type CompileOptions,
  type CompileReport,
  type CompileResult,
  compileSop,
  type FaithfulnessRound,
  readToolCatalog,
} from "./compile.js";
export { draftModel, modelJsonSchema, reviseModel } from "./draft.js";
export { CompileError } from "./llm.js";
export { DEFAULT_LLM_MODEL, type Lowered, type LowerOptions, lowerModel, type ToolCatalog } from "./lower.js";
export * from "./model.js";
export { type BurdenSummary, burdenFeedback, measureBurden, type OptimiseResult, optimiseBurden } from "./optimise.js";
export { artifactHistory, runCompiled } from "./runtime.js";
export * from "./validate/coverage.js";
export { atomKey, type Disagreement, type DryRunReport, dryRun, dryRunFeedback } from "./validate/dryrun.js";
export { checkObligations, enumerateObligations, type Obligation } from "./validate/obligations.js";
export { extractSourceLogic, parseSourceLogic, type SourceLogic } from "./validate/source.js";
export { type StaticReport, staticCheck } from "./validate/static.js";
