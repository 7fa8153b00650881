import type { ValueType } from "./types.js";
import type { AppMode } from "./workflow.js";

/** System variables (`sys.*`) and the app modes that have them. */
export const SYSTEM_VARIABLES: ReadonlyArray<{ name: string; type: ValueType; modes: AppMode[] }> = [
  { name: "query", type: "string", modes: ["advanced-chat"] },
  { name: "files", type: "array[file]", modes: ["workflow", "advanced-chat"] },
  { name: "conversation_id", type: "string", modes: ["advanced-chat"] },
  { name: "dialogue_count", type: "number", modes: ["advanced-chat"] },
  { name: "user_id", type: "string", modes: ["workflow", "advanced-chat"] },
  { name: "app_id", type: "string", modes: ["workflow", "advanced-chat"] },
  { name: "workflow_id", type: "string", modes: ["workflow", "advanced-chat"] },
  { name: "workflow_run_id", type: "string", modes: ["workflow", "advanced-chat"] },
  { name: "timestamp", type: "number", modes: ["workflow", "advanced-chat"] },
];

export function systemVariable(name: string, mode: AppMode) {
  return SYSTEM_VARIABLES.find((v) => v.name === name && v.modes.includes(mode));
}
