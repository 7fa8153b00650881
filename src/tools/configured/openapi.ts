/**
 * Dify's custom API tools: an OpenAPI 3 document whose every operation is a tool (named by its
 * operationId, else `<method>_<path>`), with the JSON Schema of its parameters and JSON body. Calls go
 * through the run's HTTP service, so the address guard (no loopback or private hosts unless the owner
 * allows them) applies to them as to HTTP-request nodes.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { FileService, FileValue, HttpService, ToolResult } from "../../ir/services.js";
import { readHostileJson } from "../../util/hostile-json.js";
import { ToolError } from "../errors.js";
import type { OpenApiProviderConfig } from "./config.js";
import {
  interpolateAll,
  interpolateEnv,
  type ProvidedTool,
  type ProviderCall,
  ToolConfigError,
  type ToolProvider,
} from "./provider.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
type Json = Record<string, any>;

interface Param {
  name: string;
  in: "path" | "query" | "header" | "cookie" | "body";
  required: boolean;
}

interface Operation {
  tool: ProvidedTool;
  method: string;
  path: string;
  params: Param[];
  /** The JSON body is the object schema's properties (spread) or one `body` argument. */
  bodyMode?: "properties" | "whole";
  /** How the body is sent: JSON, a form (`application/x-www-form-urlencoded`), multipart, or raw bytes. */
  encoding?: BodyEncoding;
  /** Properties of a multipart body that are files (`format: binary`): sent as file parts. */
  fileFields?: string[];
  /** A request body of a media type Weft cannot send: calling the tool says so. */
  unsupportedBody?: string;
}

/** Resolve local `$ref`s (`#/components/...`); a cycle or an external ref is left as `{}` with its description. */
function deref(doc: Json, v: unknown, seen: string[] = []): any {
  if (Array.isArray(v)) return v.map((x) => deref(doc, x, seen));
  if (!v || typeof v !== "object") return v;
  const o = v as Json;
  if (typeof o.$ref === "string") {
    const ref = o.$ref;
    if (!ref.startsWith("#/") || seen.includes(ref)) return { description: `(${ref})` };
    let target: any = doc;
    for (const part of ref.slice(2).split("/")) target = target?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (target === undefined)
      throw new ToolConfigError(
        "tools.openapi_bad_ref",
        `the OpenAPI document refers to ${ref}, which it does not define`,
        { ref },
      );
    return deref(doc, target, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, deref(doc, x, seen)]));
}

function toolName(op: Json, method: string, path: string): string {
  if (typeof op.operationId === "string" && op.operationId) return op.operationId;
  return `${method}_${path}`
    .replace(/[{}]/g, "")
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

export function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Json)) {
    const shared = deref(doc, (item as Json).parameters ?? []) as Json[];
    for (const method of METHODS) {
      const raw = (item as Json)[method];
      if (!raw) continue;
      const op = deref(doc, raw) as Json;
      const properties: Json = {};
      const required: string[] = [];
      const params: Param[] = [];
      const all = [...shared, ...((op.parameters ?? []) as Json[])];
      for (const p of all) {
        if (!p?.name || !["path", "query", "header", "cookie"].includes(p.in)) continue;
        properties[p.name] = {
          ...(p.schema ?? { type: "string" }),
          ...(p.description ? { description: p.description } : {}),
        };
        const req = p.in === "path" || p.required === true;
        if (req) required.push(p.name);
        params.push({ name: p.name, in: p.in, required: req });
      }
      let bodyMode: Operation["bodyMode"];
      const chosen = bodyOf(op.requestBody);
      const body = chosen?.schema;
      const fileFields: string[] = [];
      if (body && chosen?.encoding === "multipart")
        for (const [k, s] of Object.entries((body.properties ?? {}) as Json)) if (isBinary(s)) fileFields.push(k);
      if (body) {
        if (body.type === "object" || body.properties) {
          bodyMode = "properties";
          for (const [k, s] of Object.entries((body.properties ?? {}) as Json)) {
            properties[k] = s;
            params.push({ name: k, in: "body", required: false });
          }
          for (const r of (body.required ?? []) as string[]) required.push(r);
        } else {
          bodyMode = "whole";
          properties.body = body;
          if (op.requestBody?.required) required.push("body");
          params.push({ name: "body", in: "body", required: !!op.requestBody?.required });
        }
      }
      const name = toolName(op, method, path);
      const unsupported =
        op.requestBody?.content && !chosen ? Object.keys(op.requestBody.content).join(", ") : undefined;
      out.push({
        tool: {
          name,
          description: String(op.summary ?? op.description ?? `${method.toUpperCase()} ${path}`),
          parameters: { type: "object", properties, required: [...new Set(required)] },
          ...(unsupported && { unusable: unsupportedMessage(name, unsupported) }),
        },
        method: method.toUpperCase(),
        path,
        params,
        bodyMode,
        ...(chosen && { encoding: chosen.encoding }),
        ...(fileFields.length > 0 && { fileFields }),
        ...(unsupported && { unsupportedBody: unsupported }),
      });
    }
  }
  return out;
}

const unsupportedMessage = (tool: string, media: string) =>
  `operation ${tool}'s request body is ${media}, which Weft cannot send (it sends JSON, application/x-www-form-urlencoded, multipart/form-data and application/octet-stream)`;

type BodyEncoding = "json" | "form" | "multipart" | "binary";

/** The media types Weft sends, in the order it prefers them when an operation offers several. */
const ENCODINGS: Array<[RegExp, BodyEncoding]> = [
  [/^application\/(.+\+)?json$/i, "json"],
  [/^application\/x-www-form-urlencoded$/i, "form"],
  [/^multipart\/form-data$/i, "multipart"],
  [/^application\/octet-stream$/i, "binary"],
];

/** The request body Weft sends for an operation: its encoding and schema (a raw byte body is one `body` file). */
function bodyOf(requestBody: Json | undefined): { encoding: BodyEncoding; schema: Json } | undefined {
  const content = (requestBody?.content ?? {}) as Json;
  for (const [re, encoding] of ENCODINGS) {
    const type = Object.keys(content).find((t) => re.test(t.split(";")[0]!.trim()));
    if (type === undefined) continue;
    const schema = (content[type]?.schema ??
      (encoding === "binary" ? { type: "string", format: "binary" } : {})) as Json;
    return { encoding, schema };
  }
  return undefined;
}

const isBinary = (s: Json | undefined) =>
  !!s && (s.format === "binary" || (s.type === "array" && (s.items as Json | undefined)?.format === "binary"));

function serialise(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The body of a call in its operation's encoding; sets the content type (multipart: fetch sets the boundary). */
async function encodeBody(
  op: Operation,
  value: unknown,
  files: FileService,
  headers: Record<string, string>,
): Promise<string | Uint8Array | FormData> {
  const where = `${op.method} ${op.path}`;
  if (op.encoding === "binary") {
    headers["content-type"] = "application/octet-stream";
    return isFileValue(value) ? files.get(value) : new TextEncoder().encode(serialise(value));
  }
  if (op.encoding === "form") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(fields(value, where)))
      for (const x of Array.isArray(v) ? v : [v]) form.append(k, serialise(x));
    return form.toString();
  }
  if (op.encoding === "multipart") {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields(value, where))) {
      for (const x of Array.isArray(v) ? v : [v]) {
        if (isFileValue(x)) {
          const bytes = await files.get(x);
          form.append(
            k,
            new Blob([bytes as Uint8Array<ArrayBuffer>], { type: x.mime_type || "application/octet-stream" }),
            x.filename,
          );
        } else if (op.fileFields?.includes(k)) form.append(k, new Blob([serialise(x)]), k);
        else form.append(k, serialise(x));
      }
    }
    return form;
  }
  headers["content-type"] = "application/json";
  return JSON.stringify(value);
}

/** A form body's fields: the arguments spread (an object), or a `body` argument that is an object. */
function fields(value: unknown, where: string): Record<string, unknown> {
  if (value && typeof value === "object" && !Array.isArray(value) && !isFileValue(value))
    return value as Record<string, unknown>;
  throw new ToolError(
    "tool.bad_body",
    `${where}: a form body needs named fields, got ${JSON.stringify(value)?.slice(0, 100)}`,
  );
}

function isFileValue(v: unknown): v is FileValue {
  return (
    !!v && typeof v === "object" && typeof (v as FileValue).transfer_method === "string" && "filename" in (v as object)
  );
}

export class OpenApiProvider implements ToolProvider {
  readonly kind = "openapi" as const;
  private loaded?: Promise<{ ops: Operation[]; base: string }>;

  constructor(
    readonly id: string,
    private readonly cfg: OpenApiProviderConfig,
    private readonly baseDir: string,
    private readonly http: HttpService | undefined,
  ) {}

  private where(): string {
    return `tools.openapi.${this.id}`;
  }

  private load(): Promise<{ ops: Operation[]; base: string }> {
    this.loaded ??= this.read().catch((e: unknown) => {
      this.loaded = undefined;
      throw e;
    });
    return this.loaded;
  }

  private async read(): Promise<{ ops: Operation[]; base: string }> {
    const spec = this.cfg.spec;
    const remote = /^https?:\/\//i.test(spec);
    let text: string;
    try {
      if (remote) {
        if (!this.http) throw new Error("no HTTP service to fetch it with");
        const r = await this.http.request({
          method: "GET",
          url: spec,
          headers: {},
          timeoutMs: this.cfg.timeoutMs,
          maxResponseBytes: 10_000_000,
        });
        if (r.status >= 400) throw new Error(`HTTP ${r.status}`);
        text = new TextDecoder().decode(r.body);
      } else text = await readFile(resolve(this.baseDir, spec), "utf8");
    } catch (e) {
      throw new ToolConfigError(
        "tools.openapi_unreadable",
        `${this.where()}.spec ${spec} cannot be read: ${(e as Error)?.message ?? e}`,
        { spec },
      );
    }
    let doc: Json;
    try {
      doc = parseYaml(text) as Json;
    } catch (e) {
      throw new ToolConfigError(
        "tools.openapi_invalid",
        `${this.where()}.spec ${spec} is not JSON or YAML: ${(e as Error).message}`,
        { spec },
      );
    }
    if (!doc || typeof doc !== "object" || typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.")) {
      const v =
        doc && typeof doc === "object"
          ? doc.swagger
            ? `swagger ${doc.swagger}`
            : `openapi ${doc.openapi ?? "(none)"}`
          : "not an object";
      throw new ToolConfigError(
        "tools.openapi_version",
        `${this.where()}.spec ${spec} must be an OpenAPI 3.x document (found ${v})`,
        { spec },
      );
    }
    const server = this.cfg.baseURL ?? (doc.servers?.[0]?.url as string | undefined);
    if (!server)
      throw new ToolConfigError(
        "tools.openapi_no_server",
        `${this.where()}: the document names no servers[0].url; set baseURL`,
        { spec },
      );
    const base = remote ? new URL(server, spec).toString() : server;
    if (!/^https?:\/\//i.test(base))
      throw new ToolConfigError(
        "tools.openapi_no_server",
        `${this.where()}: server URL "${server}" is not absolute; set baseURL`,
        { spec },
      );
    return { ops: operationsOf(doc), base: base.replace(/\/+$/, "") };
  }

  async tools(): Promise<ProvidedTool[]> {
    return (await this.load()).ops.map((o) => o.tool);
  }

  async call(tool: string, call: ProviderCall): Promise<ToolResult> {
    const { ops, base } = await this.load();
    const op = ops.find((o) => o.tool.name === tool);
    if (!op)
      throw new ToolError(
        "tool.unknown",
        `${this.where()} has no operation "${tool}" (it has ${ops.map((o) => o.tool.name).join(", ")})`,
        { provider: this.id, tool },
      );
    if (!this.http)
      throw new ToolError("tool.no_http", `${this.where()}: no HTTP service is configured`, { provider: this.id });
    if (op.unsupportedBody)
      throw new ToolError(
        "tool.unsupported_body",
        `tool ${this.id}/${tool}: ${unsupportedMessage(tool, op.unsupportedBody)}`,
        { provider: this.id, tool, mediaType: op.unsupportedBody },
      );
    for (const p of op.params) {
      if (p.required && (call.args[p.name] === undefined || call.args[p.name] === null)) {
        throw new ToolError(
          "tool.missing_parameter",
          `tool ${this.id}/${tool}: required parameter "${p.name}" is missing`,
          { provider: this.id, tool, parameter: p.name },
        );
      }
    }
    let path = op.path;
    const url = new URL(base);
    const headers: Record<string, string> = {
      accept: "application/json, text/plain;q=0.9, */*;q=0.1",
      ...interpolateAll(this.cfg.headers, `${this.where()}.headers`),
    };
    const body: Record<string, unknown> = {};
    let whole: unknown;
    for (const p of op.params) {
      const v = call.args[p.name];
      if (v === undefined || v === null) continue;
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(serialise(v)));
      else if (p.in === "query") url.searchParams.append(p.name, serialise(v));
      else if (p.in === "header") headers[p.name.toLowerCase()] = serialise(v);
      else if (p.in === "cookie")
        headers.cookie = `${headers.cookie ? `${headers.cookie}; ` : ""}${p.name}=${encodeURIComponent(serialise(v))}`;
      else if (op.bodyMode === "whole") whole = v;
      else body[p.name] = v;
    }
    url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
    this.authorise(url, headers);
    const hasBody =
      op.bodyMode !== undefined && (op.bodyMode === "whole" ? whole !== undefined : Object.keys(body).length > 0);
    const payload = hasBody
      ? await encodeBody(op, op.bodyMode === "whole" ? whole : body, call.files, headers)
      : undefined;
    const r = await this.http.request({
      method: op.method,
      url: url.toString(),
      headers,
      body: payload,
      timeoutMs: this.cfg.timeoutMs,
      signal: call.signal,
    });
    const text = new TextDecoder().decode(r.body);
    if (r.status >= 400) {
      throw new ToolError(
        "tool.http_status",
        `tool ${this.id}/${tool}: ${op.method} ${url.pathname} answered HTTP ${r.status}: ${text.slice(0, 300)}`,
        {
          provider: this.id,
          tool,
          status: r.status,
        },
      );
    }
    const json: unknown[] = [];
    if (/json/i.test(r.headers["content-type"] ?? "") || /^\s*[[{]/.test(text)) {
      // The response is hostile input (src/util/hostile-json.ts); invalid JSON is not JSON after all: the text stands.
      const read = readHostileJson(text);
      if (read.ok) json.push(read.value);
      else if (read.reason !== "invalid") {
        throw new ToolError(
          "tool.bad_result",
          `tool ${this.id}/${tool}: ${op.method} ${url.pathname} returned JSON that is refused: ${read.message}`,
          {
            provider: this.id,
            tool,
            reason: read.reason,
          },
        );
      }
    }
    return { text, files: [], json };
  }

  private authorise(url: URL, headers: Record<string, string>): void {
    const a = this.cfg.auth;
    const where = `${this.where()}.auth`;
    if (a.type === "bearer") headers.authorization = `Bearer ${interpolateEnv(a.token, `${where}.token`)}`;
    else if (a.type === "basic") {
      const user = interpolateEnv(a.username, `${where}.username`);
      const pass = interpolateEnv(a.password, `${where}.password`);
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    } else if (a.type === "api_key") {
      const value = interpolateEnv(a.value, `${where}.value`);
      if (a.in === "query") url.searchParams.set(a.name, value);
      else headers[a.name.toLowerCase()] = value;
    }
  }

  async close(): Promise<void> {}
}
