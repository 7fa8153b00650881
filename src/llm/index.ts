/** Public surface of the LLM layer: build a service from config, load config from file + environment. */
export {
  DEFAULT_CONFIG_FILE,
  describeConfigHelp,
  type EndpointConfig,
  hasAnyEndpoint,
  type LlmConfig,
  type LlmConfigInput,
  type LoadLlmConfigOptions,
  loadLlmConfig,
  PROVIDER_KINDS,
  type ProviderKind,
  parseLlmConfig,
  type RetryPolicy,
} from "./config.js";
export { LlmConfigError, LlmError, type LlmErrorCode } from "./errors.js";
export {
  configuredNodeModel,
  difyProviderCandidates,
  nodeModelAt,
  type ResolvedModel,
  resolveModel,
} from "./resolve.js";
export type { RetryEvent } from "./retry.js";
export {
  createLlmService,
  type LlmCallEvent,
  type LlmChatResponse,
  type LlmServiceOptions,
  type UsageTotals,
  type WeftLlmService,
} from "./service.js";
