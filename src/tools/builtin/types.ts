import type { FileService, FileValue, ToolResult } from "../../ir/services.js";
import { ToolError } from "../errors.js";

export interface ParamSpec {
  name: string;
  type: "string" | "number" | "boolean" | "select" | "file" | "files";
  required: boolean;
  description: string;
  /** `llm`: filled by the model or the workflow; `form`: a setting (Dify tool_configurations). */
  form: "llm" | "form";
  options?: string[];
  default?: unknown;
}

export interface ToolContext {
  providerId: string;
  toolName: string;
  /** Settings (tool_configurations) overlaid by parameters, as Dify merges them before invoking. */
  args: Record<string, unknown>;
  files: FileService;
  now: () => Date;
  signal?: AbortSignal;
}

export interface BuiltinTool {
  /** Short provider name (`time`, `md_exporter` ...); three-part plugin ids resolve to it. */
  provider: string;
  name: string;
  label: string;
  description: string;
  parameters: ParamSpec[];
  run(ctx: ToolContext): Promise<Partial<ToolResult>>;
}

export function emptyResult(): ToolResult {
  return { text: "", files: [], json: [] };
}

function fail(ctx: ToolContext, param: string, reason: string): ToolError {
  return new ToolError(
    "tool.invalid_parameter",
    `tool ${ctx.providerId}/${ctx.toolName}: parameter "${param}" ${reason}`,
    {
      provider: ctx.providerId,
      tool: ctx.toolName,
      parameter: param,
    },
  );
}

/** The parameter as text; objects become JSON, null/undefined the empty string. */
export function str(ctx: ToolContext, name: string, fallback = ""): string {
  const v = ctx.args[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

export function optionalNumber(ctx: ToolContext, name: string): number | undefined {
  const v = ctx.args[name];
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : Number(String(v).trim());
  if (!Number.isFinite(n)) throw fail(ctx, name, `must be a number, got ${JSON.stringify(v)}`);
  return n;
}

export function requiredNumber(ctx: ToolContext, name: string): number {
  const n = optionalNumber(ctx, name);
  if (n === undefined) throw fail(ctx, name, "is required");
  return n;
}

/** Dify's chart tools take lists as `a;b;c` strings; LLMs also send JSON arrays or commas. */
export function list(ctx: ToolContext, name: string): string[] {
  const v = ctx.args[name];
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x : JSON.stringify(x)).trim());
  const s = String(v).trim();
  if (!s) return [];
  if (s.startsWith("[")) {
    try {
      const arr = JSON.parse(s);
      if (Array.isArray(arr)) return arr.map((x) => String(x).trim());
    } catch {
      // not JSON: split below
    }
  }
  const sep = s.includes(";") ? ";" : s.includes("；") ? "；" : ",";
  return s
    .split(sep)
    .map((x) => x.trim())
    .filter((x) => x !== "");
}

export function numberList(ctx: ToolContext, name: string): number[] {
  return list(ctx, name).map((x) => {
    const n = Number(x.replace(/,/g, ""));
    if (!Number.isFinite(n)) throw fail(ctx, name, `must hold numbers separated by ";", found ${JSON.stringify(x)}`);
    return n;
  });
}

export function choice<T extends string>(ctx: ToolContext, name: string, allowed: readonly T[], fallback: T): T {
  const v = str(ctx, name).trim().toLowerCase();
  if (!v) return fallback;
  if (!(allowed as readonly string[]).includes(v))
    throw fail(ctx, name, `must be one of ${allowed.join(", ")}, got "${v}"`);
  return v as T;
}

export { fail as paramError };

/** A filename safe to store: no path parts, no control characters, bounded length. */
export function safeFilename(raw: string, fallback: string, extension: string): string {
  const base = raw
    .replace(/[\\/:*?"<>|\p{Cc}]/gu, "_")
    .trim()
    .slice(0, 120);
  const name = base || fallback;
  return name.toLowerCase().endsWith(extension) ? name : `${name}${extension}`;
}

export async function storeText(
  ctx: ToolContext,
  text: string,
  filename: string,
  mimeType: string,
): Promise<FileValue> {
  return ctx.files.put(new TextEncoder().encode(text), { filename, mimeType });
}
