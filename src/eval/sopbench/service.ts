import type { ToolInvocation, ToolResult, ToolService, ToolSpec } from "../../ir/services.js";
import { type EnvOptions, SopBenchEnv } from "./env.js";
import { SopBenchError } from "./errors.js";

export const PROVIDER_PREFIX = "sopbench/";
export const providerIdOf = (domain: string) => `${PROVIDER_PREFIX}${domain}`;

/** Renders a tool's return value the way a tool node hands it on: text always, json when structured. */
export function toToolResult(value: unknown): ToolResult {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return { text, files: [], json: value !== null && typeof value === "object" ? [value] : [] };
}

/**
 * One SOP-Bench domain as a Weft ToolService (providerId `sopbench/<domain>`). Bad arguments throw
 * sopbench.invalid_args, tool refusals sopbench.tool_error; both are WeftErrors with the tool named.
 */
export class SopBenchToolService implements ToolService {
  readonly env: SopBenchEnv;
  readonly providerId: string;

  constructor(domain: string, options: EnvOptions = {}) {
    this.env = new SopBenchEnv(domain, options);
    this.providerId = providerIdOf(this.env.domain.name);
  }

  list(): ToolSpec[] {
    return this.env.specs().map((s) => structuredClone(s));
  }

  async invoke(inv: ToolInvocation): Promise<ToolResult> {
    if (inv.providerId !== this.providerId)
      throw new SopBenchError(
        "sopbench.unknown_provider",
        `Provider "${inv.providerId}" is not served here (this is ${this.providerId})`,
        {
          providerId: inv.providerId,
          expected: this.providerId,
        },
      );
    if (inv.signal?.aborted)
      throw new SopBenchError("sopbench.aborted", `Call to ${inv.toolName} was aborted`, { tool: inv.toolName });
    return toToolResult(this.env.call(inv.toolName, inv.parameters ?? {}));
  }
}
