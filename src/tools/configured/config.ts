/**
 * The `tools` section of weft.config.json: tools served by configuration, no code. Every configured
 * provider has an id (the key) unique across the kinds:
 * - `mcp.<id>`: an MCP server, `{command, args, env, cwd}` (stdio) or `{url, headers}` (streamable HTTP);
 * - `openapi.<id>`: an OpenAPI 3 document (`spec`: a path or URL) whose operations become tools;
 * - `workflow.<id>`: a Weft/Dify workflow file that runs as the tool;
 * - `map`: Dify provider/tool names (`tavily/tavily_search`, or a whole provider `tavily`) → a configured
 *   tool (`search/web_search`, or a whole provider `search`), optionally renaming or fixing arguments.
 * String values of `env`, `headers` and `auth` may name environment variables as `${NAME}`.
 */
import { z } from "zod";

const Env = z.record(z.string(), z.string());

export const McpStdioSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: Env.default({}),
  cwd: z.string().optional(),
  /** Per call; the server may be slow to start, which counts against the first call. */
  timeoutMs: z.int().positive().default(60_000),
});

export const McpHttpSchema = z.strictObject({
  url: z.url(),
  headers: z.record(z.string(), z.string()).default({}),
  timeoutMs: z.int().positive().default(60_000),
});

export const McpServerSchema = z.union([McpStdioSchema, McpHttpSchema]);

export const OpenApiAuthSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({ type: z.literal("bearer"), token: z.string().min(1) }),
  z.strictObject({
    type: z.literal("api_key"),
    in: z.enum(["header", "query"]).default("header"),
    name: z.string().min(1),
    value: z.string().min(1),
  }),
  z.strictObject({ type: z.literal("basic"), username: z.string(), password: z.string() }),
]);

export const OpenApiProviderSchema = z.strictObject({
  /** Path (relative to the config file) or http(s) URL of an OpenAPI 3 document, JSON or YAML. */
  spec: z.string().min(1),
  /** Overrides the document's `servers[0].url`. */
  baseURL: z.url().optional(),
  auth: OpenApiAuthSchema.default({ type: "none" }),
  headers: z.record(z.string(), z.string()).default({}),
  timeoutMs: z.int().positive().default(30_000),
});

export const WorkflowProviderSchema = z.strictObject({
  /** Path (relative to the config file) of a Dify YAML or Weft JSON workflow. */
  file: z.string().min(1),
  /** The tool's name; any tool name of the provider is served when omitted (Dify's workflow tools have one). */
  name: z.string().min(1).optional(),
  description: z.string().optional(),
});

export const ToolTargetSchema = z.union([
  z.string().min(1),
  z.strictObject({
    /** `provider/tool` or `provider` (the Dify tool name is kept). */
    tool: z.string().min(1),
    /** Dify parameter name → the configured tool's parameter name. */
    rename: z.record(z.string(), z.string()).default({}),
    /** Arguments always sent (they win over the node's). */
    set: z.record(z.string(), z.unknown()).default({}),
  }),
]);

export const ToolsConfigSchema = z
  .strictObject({
    mcp: z.record(z.string().min(1), McpServerSchema).default({}),
    openapi: z.record(z.string().min(1), OpenApiProviderSchema).default({}),
    workflow: z.record(z.string().min(1), WorkflowProviderSchema).default({}),
    map: z.record(z.string().min(1), ToolTargetSchema).default({}),
  })
  .superRefine((t, ctx) => {
    const kinds = new Map<string, string>();
    for (const kind of ["mcp", "openapi", "workflow"] as const) {
      for (const id of Object.keys(t[kind])) {
        const other = kinds.get(id);
        if (other)
          ctx.addIssue({
            code: "custom",
            path: [kind, id],
            message: `provider id "${id}" is also configured under tools.${other}`,
          });
        kinds.set(id, kind);
      }
    }
    for (const [from, target] of Object.entries(t.map)) {
      const to = typeof target === "string" ? target : target.tool;
      const provider = kinds.has(to) ? to : to.slice(0, to.lastIndexOf("/"));
      if (!kinds.has(provider)) {
        ctx.addIssue({
          code: "custom",
          path: ["map", from],
          message: `maps to "${to}", but no provider "${provider || to}" is configured under tools.mcp, tools.openapi or tools.workflow`,
        });
      }
    }
  });

export type ToolsConfig = z.output<typeof ToolsConfigSchema>;
export type McpServerConfig = z.output<typeof McpServerSchema>;
export type OpenApiProviderConfig = z.output<typeof OpenApiProviderSchema>;
export type WorkflowProviderConfig = z.output<typeof WorkflowProviderSchema>;
export type ToolTarget = z.output<typeof ToolTargetSchema>;

export const EMPTY_TOOLS_CONFIG: ToolsConfig = { mcp: {}, openapi: {}, workflow: {}, map: {} };
