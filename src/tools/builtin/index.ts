export {
  BUILTIN_TOOLS,
  type ExternalToolCall,
  type ExternalToolImpl,
  LocalToolService,
  providerKey,
} from "./service.js";
export type { BuiltinTool, ParamSpec, ToolContext } from "./types.js";
