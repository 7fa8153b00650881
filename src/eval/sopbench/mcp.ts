import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { EnvOptions } from "./env.js";
import { SopBenchError } from "./errors.js";
import { SopBenchToolService } from "./service.js";

/**
 * An MCP server exposing one domain's tools. The toolspecs are plain JSON Schemas, which McpServer's
 * zod-based registerTool cannot take, so the list/call handlers are set on its underlying protocol server.
 * Tool failures come back as `isError` results with the original's "Error: <message>" text, so an agent
 * sees them as the SOP-Bench agents did.
 */
export function createSopBenchMcpServer(
  domain: string,
  options: EnvOptions = {},
): { mcp: McpServer; service: SopBenchToolService } {
  const service = new SopBenchToolService(domain, options);
  const mcp = new McpServer({ name: `sopbench-${service.env.domain.name}`, version: "0.1.0" });
  mcp.server.registerCapabilities({ tools: {} });
  mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: service.list().map((s) => ({
      name: s.name,
      description: s.description,
      inputSchema: { type: "object" as const, ...s.parameters },
    })),
  }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    try {
      const r = await service.invoke({
        providerId: service.providerId,
        toolName: req.params.name,
        parameters: (req.params.arguments ?? {}) as Record<string, unknown>,
      });
      return { content: [{ type: "text", text: r.text }] };
    } catch (e) {
      const code = e instanceof SopBenchError ? e.code : "sopbench.tool_error";
      return {
        isError: true,
        content: [{ type: "text", text: `Error: ${(e as Error).message}` }],
        _meta: { code, ...(e instanceof SopBenchError ? { details: e.details } : {}) },
      };
    }
  });
  return { mcp, service };
}
