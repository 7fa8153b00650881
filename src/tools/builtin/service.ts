import { NotConfiguredError } from "../../ir/errors.js";
import type { FileService, ToolInvocation, ToolResult, ToolService, ToolSpec } from "../../ir/services.js";
import { unservedMessage } from "../configured/snippet.js";
import { ToolError } from "../errors.js";
import { MemoryFileService } from "../files.js";
import { echartsTools, legacyChartTools } from "./echarts.js";
import { jsonProcessTools } from "./json-process.js";
import { MD_EXPORTER_UNAVAILABLE, mdExporterTools } from "./md-exporter.js";
import { mermaidTools } from "./mermaid.js";
import { timeTools } from "./time.js";
import type { BuiltinTool, ParamSpec, ToolContext } from "./types.js";

/** What a plugged-in provider receives: the invocation plus the run's file store and clock. */
export interface ExternalToolCall extends ToolInvocation {
  /** tool_configurations overlaid by parameters (Dify merges them before invoking). */
  args: Record<string, unknown>;
  files: FileService;
  now: () => Date;
}

export type ExternalToolImpl = (call: ExternalToolCall) => Promise<Partial<ToolResult>>;

export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  ...timeTools,
  ...mermaidTools,
  ...mdExporterTools,
  ...echartsTools,
  ...legacyChartTools,
  ...jsonProcessTools,
];

/**
 * `hjlarry/mermaid_converter/mermaid_converter` → `mermaid_converter`; bare pre-plugin ids (`time`)
 * stay as they are. Plugin and pre-plugin spellings of one provider thus meet.
 */
export function providerKey(providerId: string): string {
  const parts = providerId.split("/").filter(Boolean);
  return parts[parts.length - 1] ?? providerId;
}

function specName(provider: string, tool: string): string {
  return `${provider}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

function normalise(r: Partial<ToolResult> | undefined): ToolResult {
  return {
    text: typeof r?.text === "string" ? r.text : "",
    files: Array.isArray(r?.files) ? r.files : [],
    json: Array.isArray(r?.json) ? r.json : [],
    ...(r?.variables && Object.keys(r.variables).length > 0 ? { variables: r.variables } : {}),
  };
}

export interface LocalToolServiceOptions {
  files?: FileService;
  now?: () => Date;
}

/**
 * The offline tool service: built-in implementations of the Dify tools that need nothing outside this
 * machine. Users serve every other tool by configuration (src/tools/configured: MCP, OpenAPI, workflow
 * files); `registerExternalTool` is an in-process hook for embedding Weft as a library. Anything else
 * fails with `tool.not_configured`, naming the provider, the tool and the config that would serve it.
 */
export class LocalToolService implements ToolService {
  readonly files: FileService;
  private readonly now: () => Date;
  private readonly builtins = new Map<string, BuiltinTool>();
  private readonly external = new Map<string, ExternalToolImpl>();
  /** Specs of plugged-in tools that asked to be offered to tool-calling nodes. */
  private readonly externalSpecs = new Map<string, { spec: ToolSpec; providerId: string; toolName: string }>();

  constructor(options: LocalToolServiceOptions = {}) {
    this.files = options.files ?? new MemoryFileService();
    this.now = options.now ?? (() => new Date());
    for (const t of BUILTIN_TOOLS) this.builtins.set(`${t.provider}/${t.name}`, t);
  }

  /**
   * Plug in a provider. `providerId` may be the full plugin id or its short name (both match either
   * spelling); `toolName` `*` covers every tool of the provider. Returns a function that unplugs it.
   */
  registerExternalTool(
    providerId: string,
    toolName: string,
    impl: ExternalToolImpl,
    /** Offer the tool to tool-calling nodes: its description and JSON-schema parameters. */
    spec?: { description: string; parameters: Record<string, unknown> },
  ): () => void {
    const key = `${providerId}/${toolName}`;
    this.external.set(key, impl);
    const name = specName(providerKey(providerId), toolName);
    if (spec && toolName !== "*") this.externalSpecs.set(name, { spec: { name, ...spec }, providerId, toolName });
    return () => {
      if (this.external.get(key) === impl) {
        this.external.delete(key);
        this.externalSpecs.delete(name);
      }
    };
  }

  private findExternal(providerId: string, toolName: string): ExternalToolImpl | undefined {
    const short = providerKey(providerId);
    for (const p of [providerId, short]) {
      for (const t of [toolName, "*"]) {
        const hit = this.external.get(`${p}/${t}`);
        if (hit) return hit;
      }
    }
    // Registered under a full id, invoked with the short one (or another org's spelling).
    for (const [key, impl] of this.external) {
      const cut = key.lastIndexOf("/");
      const p = key.slice(0, cut);
      const t = key.slice(cut + 1);
      if (providerKey(p) === short && (t === toolName || t === "*")) return impl;
    }
    return undefined;
  }

  /** Does a built-in or a plugged-in implementation serve provider/tool? */
  serves(providerId: string, toolName: string): boolean {
    return !!this.findExternal(providerId, toolName) || !!this.builtin(providerId, toolName);
  }

  builtin(providerId: string, toolName: string): BuiltinTool | undefined {
    return this.builtins.get(`${providerKey(providerId)}/${toolName}`);
  }

  /** Parameter specs of a built-in tool, so a tool node can tell required parameters from optional ones. */
  parameterSpecs(providerId: string, toolName: string): ParamSpec[] | undefined {
    return this.builtin(providerId, toolName)?.parameters;
  }

  async describe(
    providerId: string,
    toolName: string,
  ): Promise<Array<{ name: string; required: boolean }> | undefined> {
    return this.parameterSpecs(providerId, toolName)?.map((p) => ({ name: p.name, required: p.required }));
  }

  async invoke(call: ToolInvocation): Promise<ToolResult> {
    let inv = call;
    // Tool-calling nodes that offer every listed tool invoke by spec name, with no provider.
    if (!inv.providerId) {
      const named = this.resolveSpec(inv.toolName);
      if (named) inv = { ...inv, ...named };
    }
    const args = { ...(inv.configurations ?? {}), ...inv.parameters };
    const ext = this.findExternal(inv.providerId, inv.toolName);
    if (ext) return normalise(await ext({ ...inv, args, files: this.files, now: this.now }));

    const tool = this.builtin(inv.providerId, inv.toolName);
    if (!tool) throw this.notConfigured(inv);
    for (const p of tool.parameters) {
      const v = args[p.name];
      // Dify checks presence only: an empty string reaches the tool, which judges it.
      if (p.required && (v === undefined || v === null)) {
        throw new ToolError(
          "tool.missing_parameter",
          `tool ${inv.providerId}/${inv.toolName}: required parameter "${p.name}" is missing`,
          { provider: inv.providerId, tool: inv.toolName, parameter: p.name },
        );
      }
    }
    if (inv.signal?.aborted)
      throw new ToolError("tool.aborted", `tool ${inv.providerId}/${inv.toolName} was cancelled`);
    const ctx: ToolContext = {
      providerId: inv.providerId,
      toolName: inv.toolName,
      args,
      files: this.files,
      now: this.now,
      signal: inv.signal,
    };
    return normalise(await tool.run(ctx));
  }

  private notConfigured(inv: ToolInvocation): NotConfiguredError {
    const short = providerKey(inv.providerId);
    const own = [...this.builtins.values()].filter((t) => t.provider === short).map((t) => t.name);
    const prefix =
      short === "md_exporter" && MD_EXPORTER_UNAVAILABLE.includes(inv.toolName)
        ? `tool ${inv.providerId}/${inv.toolName} has no offline implementation here (available: ${mdExporterTools.map((t) => t.name).join(", ")}), and`
        : own.length > 0
          ? `tool ${inv.providerId}/${inv.toolName} is not one of the built-in ${short} tools (${own.join(", ")}), and`
          : `tool ${inv.providerId}/${inv.toolName}`;
    return new NotConfiguredError("tool.not_configured", unservedMessage(inv, prefix), {
      provider: inv.providerId,
      tool: inv.toolName,
      providerType: inv.providerType ?? null,
    });
  }

  /** Built-in and plugged-in tools as JSON-schema specs, for tool-calling nodes. */
  list(): ToolSpec[] {
    const specs: ToolSpec[] = [];
    for (const t of this.builtins.values()) {
      const llmParams = t.parameters.filter((p) => p.form === "llm");
      specs.push({
        name: specName(t.provider, t.name),
        description: `${t.label}: ${t.description}`,
        parameters: {
          type: "object",
          properties: Object.fromEntries(
            llmParams.map((p) => [
              p.name,
              {
                type: p.type === "number" ? "number" : p.type === "boolean" ? "boolean" : "string",
                description: p.description,
                ...(p.options ? { enum: p.options } : {}),
              },
            ]),
          ),
          required: llmParams.filter((p) => p.required).map((p) => p.name),
        },
      });
    }
    for (const e of this.externalSpecs.values()) if (!specs.some((s) => s.name === e.spec.name)) specs.push(e.spec);
    return specs;
  }

  /** Resolve a spec name from `list()` back to the provider and tool. */
  resolveSpec(name: string): { providerId: string; toolName: string } | undefined {
    for (const t of this.builtins.values()) {
      if (specName(t.provider, t.name) === name) return { providerId: t.provider, toolName: t.name };
    }
    const ext = this.externalSpecs.get(name);
    return ext ? { providerId: ext.providerId, toolName: ext.toolName } : undefined;
  }
}
