/**
 * What a user writes in weft.config.json to serve a tool nothing serves yet. Used by the run-time
 * `tool.not_configured` error and the validation-time `tool.unserved` warning, so both say the same.
 */
import { describeProviderType, EXTERNAL_PROVIDERS } from "../builtin/catalog.js";

export interface UnservedTool {
  providerId: string;
  toolName: string;
  providerType?: string;
}

/** `hjlarry/mermaid_converter/mermaid_converter` → `mermaid_converter`; bare ids stay. */
export function shortProvider(providerId: string): string {
  const parts = providerId.split("/").filter(Boolean);
  return parts[parts.length - 1] ?? providerId;
}

export function servingSnippet(t: UnservedTool): string {
  const id = t.providerId;
  let tools: Record<string, unknown>;
  switch (t.providerType) {
    case "mcp":
      tools = { mcp: { [id]: { command: "<command that starts the MCP server>", args: [] } } };
      break;
    case "api":
      tools = {
        openapi: {
          [id]: {
            spec: "<path or URL of its OpenAPI document>",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder the tools file interpolates from the environment
            auth: { type: "bearer", token: "${API_TOKEN}" },
          },
        },
      };
      break;
    case "workflow":
    case "app":
      tools = { workflow: { [id]: { file: `<the workflow file that implements ${t.toolName}>.yml` } } };
      break;
    default: {
      const short = shortProvider(id);
      tools = {
        mcp: { [short]: { command: `<command that starts an MCP server with a ${t.toolName} tool>`, args: [] } },
        map: { [`${short}/${t.toolName}`]: `${short}/<its tool name on that server>` },
      };
    }
  }
  return JSON.stringify({ tools }, null, 2);
}

/** The sentence and snippet of an unserved tool. */
export function unservedMessage(t: UnservedTool, prefix = `tool ${t.providerId}/${t.toolName}`): string {
  const needs = EXTERNAL_PROVIDERS[shortProvider(t.providerId)] ?? describeProviderType(t.providerType);
  return `${prefix}${needs ? ` needs ${needs}; it` : ""} is not served here (provider_type ${t.providerType ?? "builtin"}). Serve it in weft.config.json (an MCP server, an OpenAPI document or a workflow file), for example:\n${servingSnippet(t)}`;
}
