/**
 * `provider_type: workflow`: another workflow file runs as the tool (tools.workflow.<id>: {file}). Its
 * start inputs are the tool's parameters, its end outputs the result (text = the outputs as JSON, or the
 * only string output; json = [outputs]; files = every file output), as Dify's workflow tools answer.
 * Nested runs share the caller's services; a chain deeper than MAX_DEPTH is refused, so a workflow that
 * calls itself fails instead of running forever.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { resolve } from "node:path";
import { analyse } from "../analysis/index.js";
import { loadWorkflowFile } from "../dsl/load.js";
import { declaredInputs } from "../engine/inputs.js";
import { runWorkflow } from "../engine/run.js";
import type { ExecServices, FileValue, ToolResult } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { nodeTypesFor } from "../nodes/registry.js";
import type { WorkflowProviderConfig } from "../tools/configured/config.js";
import type { ProvidedTool, ProviderCall, ToolProvider } from "../tools/configured/provider.js";
import { ToolConfigError } from "../tools/configured/provider.js";
import { ToolError } from "../tools/errors.js";

const MAX_DEPTH = 5;
const depth = new AsyncLocalStorage<number>();

const JSON_TYPES: Record<string, string> = {
  number: "number",
  checkbox: "boolean",
  json_object: "object",
  file: "object",
  "file-list": "array",
};

/** A workflow's start inputs as the JSON Schema of a tool's arguments. */
export function inputSchemaOf(wf: Workflow): Record<string, unknown> {
  const vars = declaredInputs(wf)?.variables ?? [];
  const properties: Record<string, unknown> = {};
  for (const v of vars) {
    const p: Record<string, unknown> = { type: JSON_TYPES[v.type] ?? "string" };
    if (v.label || v.description) p.description = v.description || v.label;
    if (v.type === "select" && v.options?.length) p.enum = v.options.map(String);
    if ((v.type === "text-input" || v.type === "paragraph") && v.max_length) p.maxLength = v.max_length;
    properties[v.variable] = p;
  }
  return { type: "object", properties, required: vars.filter((v) => v.required).map((v) => v.variable) };
}

const isFile = (v: unknown): v is FileValue =>
  !!v && typeof v === "object" && "transfer_method" in v && "filename" in v;

/** End outputs → Dify's tool result. */
export function outputsToToolResult(outputs: Record<string, unknown>): ToolResult {
  const files = Object.values(outputs).flatMap((v) => (Array.isArray(v) ? v.filter(isFile) : isFile(v) ? [v] : []));
  const values = Object.values(outputs);
  const text = values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(outputs);
  return { text, files, json: [outputs] };
}

export class WorkflowToolProvider implements ToolProvider {
  readonly kind = "workflow" as const;
  private loaded?: Promise<Workflow>;

  constructor(
    readonly id: string,
    private readonly cfg: WorkflowProviderConfig,
    private readonly baseDir: string,
    private readonly services: () => Partial<ExecServices>,
  ) {}

  private workflow(): Promise<Workflow> {
    this.loaded ??= this.load().catch((e: unknown) => {
      this.loaded = undefined;
      throw e;
    });
    return this.loaded;
  }

  private async load(): Promise<Workflow> {
    const path = resolve(this.baseDir, this.cfg.file);
    let wf: Workflow;
    try {
      wf = (await loadWorkflowFile(path)).workflow;
    } catch (e) {
      throw new ToolConfigError(
        "tools.workflow_unreadable",
        `tools.workflow.${this.id}.file ${path}: ${(e as Error)?.message ?? e}`,
        { file: path },
      );
    }
    const errors = analyse(wf, await nodeTypesFor(wf)).diagnostics.filter((d) => d.severity === "error");
    if (errors.length > 0) {
      throw new ToolConfigError(
        "tools.workflow_invalid",
        `tools.workflow.${this.id}.file ${path} has errors: ${errors[0]!.code}: ${errors[0]!.message}`,
        { file: path },
      );
    }
    if (wf.mode !== "workflow") {
      throw new ToolConfigError(
        "tools.workflow_mode",
        `tools.workflow.${this.id}.file ${path} is a ${wf.mode} app; a tool must be a workflow-mode app (start → end)`,
        { file: path },
      );
    }
    return wf;
  }

  async tools(): Promise<ProvidedTool[]> {
    const wf = await this.workflow();
    return [
      {
        name: this.cfg.name ?? wf.name,
        description: this.cfg.description ?? (wf.description || wf.name),
        parameters: inputSchemaOf(wf),
      },
    ];
  }

  /** Any tool name reaches the one workflow unless `name` pins it (Dify's workflow providers hold one tool). */
  async call(tool: string, call: ProviderCall): Promise<ToolResult> {
    if (this.cfg.name && tool !== this.cfg.name) {
      throw new ToolError("tool.unknown", `tools.workflow.${this.id} serves "${this.cfg.name}", not "${tool}"`, {
        provider: this.id,
        tool,
      });
    }
    const wf = await this.workflow();
    const level = (depth.getStore() ?? 0) + 1;
    if (level > MAX_DEPTH) {
      throw new ToolError(
        "tool.workflow_depth",
        `workflow tool ${this.id}/${tool}: workflows calling workflows nest deeper than ${MAX_DEPTH}`,
        { provider: this.id, tool },
      );
    }
    const known = new Set((declaredInputs(wf)?.variables ?? []).map((v) => v.variable));
    const inputs = Object.fromEntries(Object.entries(call.args).filter(([k]) => known.has(k)));
    const r = await depth.run(level, () => runWorkflow(wf, { inputs, services: this.services(), signal: call.signal }));
    if (r.status === "failed") {
      throw new ToolError(
        "tool.workflow_failed",
        `workflow tool ${this.id}/${tool} failed: ${r.error?.code}: ${r.error?.message}`,
        {
          provider: this.id,
          tool,
          cause: r.error?.code,
        },
      );
    }
    return outputsToToolResult(r.outputs);
  }

  async close(): Promise<void> {}
}
