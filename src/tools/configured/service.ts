/**
 * The tool service of a run: the configured providers (tools.mcp, tools.openapi, tools.workflow, reached
 * directly by provider id or through tools.map) in front of the offline built-ins. A tool nothing serves
 * fails with `tool.not_configured`, naming it and printing the configuration that would serve it.
 */
import { NotConfiguredError } from "../../ir/errors.js";
import type { FileService, ToolInvocation, ToolResult, ToolService, ToolSpec } from "../../ir/services.js";
import type { LocalToolService } from "../builtin/service.js";
import { ToolError } from "../errors.js";
import { coerceArgs, requiredOf } from "./args.js";
import type { ToolsConfig, ToolTarget } from "./config.js";
import type { ProvidedTool, ToolProvider } from "./provider.js";
import { shortProvider, unservedMessage } from "./snippet.js";

export interface Route {
  provider: ToolProvider;
  tool: string;
  rename: Record<string, string>;
  set: Record<string, unknown>;
  /** The tools.map key that chose it, if any. */
  via?: string;
}

export type Served = { by: "configured"; route: Route } | { by: "builtin" } | undefined;

function specName(provider: string, tool: string): string {
  return `${provider}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

export class ConfiguredToolService implements ToolService {
  private readonly providers = new Map<string, ToolProvider>();
  private local?: Promise<LocalToolService>;

  /**
   * `files` is the run's file store (the built-ins' too); `builtins` makes the offline built-in tools, called on
   * first use: their ~50 KB of modules were start-up cost of every `weft run`, and most workflows use no tool.
   */
  constructor(
    private readonly config: ToolsConfig,
    readonly files: FileService,
    private readonly builtins: () => Promise<LocalToolService>,
    providers: ToolProvider[],
  ) {
    for (const p of providers) this.providers.set(p.id, p);
  }

  /** The offline built-in tools (made by the first call that needs them). */
  builtin(): Promise<LocalToolService> {
    this.local ??= this.builtins();
    return this.local;
  }

  configuredProviders(): ToolProvider[] {
    return [...this.providers.values()];
  }

  private target(t: ToolTarget, toolName: string, via: string): Route | undefined {
    const to = typeof t === "string" ? t : t.tool;
    const extra = typeof t === "string" ? { rename: {}, set: {} } : { rename: t.rename, set: t.set };
    const whole = this.providers.get(to);
    if (whole) return { provider: whole, tool: toolName, ...extra, via };
    const cut = to.lastIndexOf("/");
    const p = this.providers.get(to.slice(0, cut));
    return p ? { provider: p, tool: to.slice(cut + 1), ...extra, via } : undefined;
  }

  /** Which configured tool serves a Dify provider/tool, by tools.map first, then by provider id. */
  route(providerId: string, toolName: string): Route | undefined {
    const short = shortProvider(providerId);
    for (const key of [`${providerId}/${toolName}`, `${short}/${toolName}`, providerId, short]) {
      const t = Object.hasOwn(this.config.map, key) ? this.config.map[key] : undefined;
      if (t) return this.target(t, toolName, key);
    }
    const direct = this.providers.get(providerId) ?? this.providers.get(short);
    return direct ? { provider: direct, tool: toolName, rename: {}, set: {} } : undefined;
  }

  /** Static: is the tool served (by configuration or a built-in)? Configured tools are not contacted. */
  async serves(providerId: string, toolName: string): Promise<Served> {
    const route = this.route(providerId, toolName);
    if (route) return { by: "configured", route };
    return (await this.builtin()).serves(providerId, toolName) ? { by: "builtin" } : undefined;
  }

  private async toolOf(route: Route): Promise<ProvidedTool> {
    const listed = await route.provider.tools();
    const tool = listed.find((t) => t.name === route.tool);
    if (!tool) {
      throw new ToolError(
        "tool.unknown",
        `tools.${route.provider.kind}.${route.provider.id} has no tool "${route.tool}"${route.via ? ` (tools.map "${route.via}" points there)` : ""}; it serves: ${listed.map((t) => t.name).join(", ") || "nothing"}`,
        { provider: route.provider.id, tool: route.tool },
      );
    }
    return tool;
  }

  async invoke(call: ToolInvocation): Promise<ToolResult> {
    let inv = call;
    if (!inv.providerId) {
      const named = await this.resolveSpec(inv.toolName);
      if (named) inv = { ...inv, ...named };
    }
    const route = inv.providerId ? this.route(inv.providerId, inv.toolName) : undefined;
    if (!route) {
      const local = await this.builtin();
      if (local.serves(inv.providerId, inv.toolName)) return local.invoke(inv);
      throw new NotConfiguredError("tool.not_configured", unservedMessage(inv), {
        provider: inv.providerId,
        tool: inv.toolName,
        providerType: inv.providerType ?? null,
      });
    }
    const tool = await this.toolOf(route);
    const given: Record<string, unknown> = { ...(inv.configurations ?? {}), ...inv.parameters };
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(given)) args[route.rename[k] ?? k] = v;
    Object.assign(args, route.set);
    const typed = coerceArgs(tool.parameters, args);
    if (inv.signal?.aborted)
      throw new ToolError("tool.aborted", `tool ${inv.providerId}/${inv.toolName} was cancelled`);
    return route.provider.call(route.tool, { args: typed, files: this.files, signal: inv.signal });
  }

  /** The parameters of the tool that serves provider/tool (names and whether each is required). */
  async describe(
    providerId: string,
    toolName: string,
  ): Promise<Array<{ name: string; required: boolean }> | undefined> {
    const route = this.route(providerId, toolName);
    if (!route)
      return (await this.builtin())
        .parameterSpecs(providerId, toolName)
        ?.map((p) => ({ name: p.name, required: p.required }));
    const tool = await this.toolOf(route);
    const required = new Set(requiredOf(tool.parameters));
    const back = new Map(Object.entries(route.rename).map(([from, to]) => [to, from]));
    return Object.keys((tool.parameters.properties ?? {}) as object).map((n) => ({
      name: back.get(n) ?? n,
      required: required.has(n),
    }));
  }

  /** Built-ins and every configured tool, as specs for tool-calling and agent nodes. */
  async list(): Promise<ToolSpec[]> {
    const specs = [...(await this.builtin()).list()];
    for (const p of this.providers.values()) {
      for (const t of await p.tools())
        specs.push({ name: specName(p.id, t.name), description: t.description, parameters: t.parameters });
    }
    return specs;
  }

  private async resolveSpec(name: string): Promise<{ providerId: string; toolName: string } | undefined> {
    for (const p of this.providers.values()) {
      const tools = await p.tools().catch(() => [] as ProvidedTool[]);
      const t = tools.find((x) => specName(p.id, x.name) === name);
      if (t) return { providerId: p.id, toolName: t.name };
    }
    return (await this.builtin()).resolveSpec(name);
  }

  async close(): Promise<void> {
    await Promise.all([...this.providers.values()].map((p) => p.close().catch(() => {})));
  }
}
