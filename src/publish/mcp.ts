/**
 * An app published as an MCP server with one tool (as Dify 1.6 publishes apps): its start inputs are
 * the tool's JSON Schema (chat apps add `query`), its end outputs the result — `structuredContent` plus
 * the same as JSON text (a chat app answers its reply). A failed run is an `isError` result naming the
 * code; a run that paused on a human-input node is an `isError` result saying how to answer its form. Served over stdio by `weft mcp serve` and over streamable HTTP by `weft serve`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { checkRunInputs, InputError } from "../engine/inputs.js";
import type { RunResult } from "../engine/run.js";
import type { Workflow } from "../ir/workflow.js";
import { inputSchemaOf } from "../runtime/workflow-tool.js";
import { type PauseInfo, pausedResult } from "./mcp-paused.js";

export type AppRunner = (
  inputs: Record<string, unknown>,
  sys: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<Pick<RunResult, "runId" | "status" | "outputs" | "error">>;

/** A tool name MCP clients accept: the app's name with anything else replaced. */
export function toolNameOf(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9_-]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 64) || "run_app"
  );
}

export function appToolSchema(wf: Workflow): Record<string, unknown> {
  const schema = inputSchemaOf(wf) as { properties: Record<string, unknown>; required: string[] };
  if (wf.mode !== "advanced-chat") return schema;
  return {
    type: "object",
    properties: { query: { type: "string", description: "the user's message (sys.query)" }, ...schema.properties },
    required: ["query", ...schema.required.filter((r) => r !== "query")],
  };
}

export function createAppMcpServer(
  wf: Workflow,
  run: AppRunner,
  opts: { name?: string; description?: string; paused?: PauseInfo } = {},
): Server {
  const name = toolNameOf(opts.name ?? wf.name);
  const server = new Server({ name: `weft-app-${name}`, version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name,
        description: opts.description || wf.description || `Runs the Weft app "${wf.name}"`,
        inputSchema: appToolSchema(wf) as { type: "object" },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    if (req.params.name !== name) {
      return {
        isError: true,
        content: [{ type: "text", text: `unknown tool "${req.params.name}"; this server has "${name}"` }],
      };
    }
    const args = { ...(req.params.arguments ?? {}) } as Record<string, unknown>;
    const sys: Record<string, unknown> = {};
    if (wf.mode === "advanced-chat") {
      sys.query = typeof args.query === "string" ? args.query : "";
      const declared = new Set(Object.keys((inputSchemaOf(wf).properties ?? {}) as object));
      if (!declared.has("query")) delete args.query;
    }
    try {
      checkRunInputs(wf, args);
    } catch (e) {
      if (e instanceof InputError)
        return { isError: true, content: [{ type: "text", text: `${e.code}: ${e.message}` }] };
      throw e;
    }
    const r = await run(args, sys, extra.signal);
    if (r.status === "paused") return pausedResult(r.runId, opts.paused);
    if (r.status === "failed") {
      return {
        isError: true,
        content: [{ type: "text", text: `run ${r.runId} failed: ${r.error?.code}: ${r.error?.message}` }],
        _meta: { runId: r.runId, code: r.error?.code },
      };
    }
    const text = wf.mode === "advanced-chat" ? String(r.outputs.answer ?? "") : JSON.stringify(r.outputs);
    return {
      content: [{ type: "text", text }],
      structuredContent: r.outputs,
      _meta: { runId: r.runId, status: r.status },
    };
  });
  return server;
}
