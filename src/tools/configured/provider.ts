import type { FileService, ToolResult } from "../../ir/services.js";

/** One tool a configured provider serves, with its arguments' JSON Schema. */
export interface ProvidedTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Why calling it cannot work although it is listed (an OpenAPI body Weft cannot send); `tools check` says it. */
  unusable?: string;
}

export interface ProviderCall {
  args: Record<string, unknown>;
  files: FileService;
  signal?: AbortSignal;
}

/** A configured tool provider (MCP server, OpenAPI document, workflow file). */
export interface ToolProvider {
  readonly id: string;
  readonly kind: "mcp" | "openapi" | "workflow";
  /** The tools it serves (an MCP server is asked; a document is read). */
  tools(): Promise<ProvidedTool[]>;
  call(tool: string, call: ProviderCall): Promise<ToolResult>;
  close(): Promise<void>;
}

/** `${NAME}` in a configured string → the environment variable; a missing one is an error naming it. */
export function interpolateEnv(
  value: string,
  where: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = env[name];
    if (v === undefined)
      throw new ToolConfigError(
        "tools.env_missing",
        `${where} names the environment variable ${name}, which is not set`,
        { variable: name, where },
      );
    return v;
  });
}

export function interpolateAll(rec: Record<string, string>, where: string): Record<string, string> {
  return Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, interpolateEnv(v, `${where}.${k}`)]));
}

import { WeftError } from "../../ir/errors.js";

/** The tools configuration cannot be used as written (a spec that does not load, a missing variable ...). */
export class ToolConfigError extends WeftError {}
