import { jsonrepair } from "jsonrepair";
import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, NotConfiguredError, WeftError } from "../ir/errors.js";
import type { ExecContext, InputRef, TextField } from "../ir/registry.js";
import type { FileValue, HttpResponseData } from "../ir/services.js";
import { commonFields, defineNode, Sel, SOURCE, templateInputs, textField } from "./common.js";
import { makeDiagnostic, nodeLabel } from "./diagnostics.js";
import { isFileValue } from "./files.js";

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;
export const BODY_TYPES = ["none", "form-data", "x-www-form-urlencoded", "raw-text", "json", "binary"] as const;

/** Server maxima (Dify defaults), in seconds; node values above them are cut down. */
export const HTTP_LIMITS = {
  connect: 10,
  read: 600,
  write: 600,
  maxTextBytes: 1024 * 1024,
  maxBinaryBytes: 10 * 1024 * 1024,
};

const BodyItem = z
  .object({
    id: z.string().optional(),
    key: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    type: z.string().default("text"),
    value: z
      .unknown()
      .optional()
      .transform((v) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v))),
    file: Sel.nullish(),
  })
  .loose();
type BodyItem = z.infer<typeof BodyItem>;

const HttpConfig = z
  .object({
    ...commonFields,
    method: z.string().default("get"),
    url: z.string().default(""),
    authorization: z
      .object({
        type: z.string().default("no-auth"),
        config: z
          .object({
            type: z.string().default("bearer"),
            api_key: z.string().nullish(),
            header: z.string().nullish(),
          })
          .loose()
          .nullish(),
      })
      .loose()
      .default({ type: "no-auth" }),
    headers: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    params: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    body: z
      .object({
        type: z.string().default("none"),
        // A legacy plain-string `data` is one text item.
        data: z
          .union([z.array(BodyItem), z.string(), z.null()])
          .optional()
          .transform((d): BodyItem[] =>
            typeof d === "string" ? (d === "" ? [] : [{ key: "", type: "text", value: d }]) : (d ?? []),
          ),
      })
      .loose()
      .nullish(),
    timeout: z
      .object({
        connect: z.number().nullish(),
        read: z.number().nullish(),
        write: z.number().nullish(),
      })
      .loose()
      .nullish(),
    ssl_verify: z.boolean().nullish(),
  })
  .loose();
export type HttpConfig = z.infer<typeof HttpConfig>;

function bodyItems(c: HttpConfig): BodyItem[] {
  return c.body?.data ?? [];
}

function httpTexts(c: HttpConfig): TextField[] {
  const out: TextField[] = [
    ...textField("url", c.url),
    ...textField("headers", c.headers),
    ...textField("params", c.params),
  ];
  if (c.authorization.type === "api-key")
    out.push(...textField("authorization.config.api_key", c.authorization.config?.api_key ?? undefined));
  const bodyType = c.body?.type ?? "none";
  if (bodyType !== "none" && bodyType !== "binary") {
    bodyItems(c).forEach((item, i) => {
      out.push(...textField(`body.data[${i}].key`, item.key));
      if (item.type !== "file") out.push(...textField(`body.data[${i}].value`, item.value));
    });
  }
  return out;
}

function httpInputs(c: HttpConfig): InputRef[] {
  const out: InputRef[] = httpTexts(c).flatMap((t) => templateInputs(t.text, t.field));
  const bodyType = c.body?.type ?? "none";
  bodyItems(c).forEach((item, i) => {
    const wantsFile = bodyType === "binary" || (bodyType === "form-data" && item.type === "file");
    if (wantsFile && item.file && item.file.length > 0) {
      out.push({
        selector: item.file,
        field: `body.data[${i}].file`,
        expects: bodyType === "binary" ? "file" : undefined,
      });
    }
  });
  return out;
}

function httpRules(c: HttpConfig, nodeId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (c.url.trim() === "") out.push(makeDiagnostic(nodeId, "http.url_missing", "url", "the URL is empty"));
  else if (!/^(https?:\/\/|\{\{#)/i.test(c.url.trim())) {
    out.push(makeDiagnostic(nodeId, "http.url_scheme", "url", "the URL must start with http:// or https://"));
  }
  if (!(HTTP_METHODS as readonly string[]).includes(c.method.toLowerCase())) {
    out.push(
      makeDiagnostic(
        nodeId,
        "http.method_invalid",
        "method",
        `method "${c.method}" is not one of ${HTTP_METHODS.join(", ")}`,
      ),
    );
  }
  const bodyType = c.body?.type ?? "none";
  if (!(BODY_TYPES as readonly string[]).includes(bodyType)) {
    out.push(
      makeDiagnostic(
        nodeId,
        "http.body_type_invalid",
        "body.type",
        `body type "${bodyType}" is not one of ${BODY_TYPES.join(", ")}`,
      ),
    );
  }
  if ((bodyType === "raw-text" || bodyType === "json" || bodyType === "binary") && bodyItems(c).length > 1) {
    out.push(makeDiagnostic(nodeId, "http.body_items", "body.data", `a ${bodyType} body has exactly one item`));
  }
  if (bodyType === "binary" && !bodyItems(c)[0]?.file?.length) {
    out.push(
      makeDiagnostic(nodeId, "http.body_file_missing", "body.data[0].file", "a binary body needs a file variable"),
    );
  }
  if (c.authorization.type !== "no-auth" && c.authorization.type !== "api-key") {
    out.push(
      makeDiagnostic(
        nodeId,
        "http.auth_type_invalid",
        "authorization.type",
        `authorization type "${c.authorization.type}" is not no-auth or api-key`,
      ),
    );
  }
  if (c.authorization.type === "api-key") {
    const cfg = c.authorization.config;
    if (!cfg?.api_key?.trim())
      out.push(makeDiagnostic(nodeId, "http.api_key_missing", "authorization.config.api_key", "the API key is empty"));
    if (cfg && !["basic", "bearer", "custom"].includes(cfg.type)) {
      out.push(
        makeDiagnostic(
          nodeId,
          "http.auth_type_invalid",
          "authorization.config.type",
          `API key type "${cfg.type}" is not basic, bearer or custom`,
        ),
      );
    }
    if (cfg?.type === "custom" && !cfg.header?.trim()) {
      out.push(
        makeDiagnostic(
          nodeId,
          "http.auth_header_missing",
          "authorization.config.header",
          "a custom API key needs a header name",
        ),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Execution

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `key:value` lines; each side rendered on its own, as Dify does. Blank lines and empty keys are dropped. */
export function parseKeyValueLines(text: string, render: (s: string) => string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const idx = line.indexOf(":");
    const key = render(idx < 0 ? line : line.slice(0, idx)).trim();
    const value = idx < 0 ? "" : render(line.slice(idx + 1)).trim();
    if (key) out.push([key, value]);
  }
  return out;
}

function fail(ctx: ExecContext<unknown>, code: string, why: string, details: Record<string, unknown> = {}): never {
  throw new NodeExecutionError(code, `${nodeLabel(ctx.node)}: ${why}`, ctx.node.id, details);
}

function capSeconds(v: number | null | undefined, max: number): number {
  return Math.min(v && v > 0 ? v : max, max);
}

async function fileBytes(
  ctx: ExecContext<HttpConfig>,
  sel: string[] | null | undefined,
  field: string,
): Promise<{ file: FileValue; bytes: Uint8Array }> {
  const r = sel && sel.length > 0 ? ctx.read(sel) : { found: false as const, value: undefined };
  const v = Array.isArray(r.value) ? r.value[0] : r.value;
  if (!r.found || !isFileValue(v))
    fail(ctx, "http.body_file_missing", `${field}: cannot read a file from ${JSON.stringify(sel ?? [])}`, { field });
  if (!ctx.services.files) {
    throw new NotConfiguredError(
      "files.not_configured",
      `${nodeLabel(ctx.node)} sends a file, but no file store is configured`,
      {
        nodeId: ctx.node.id,
      },
    );
  }
  return { file: v, bytes: await ctx.services.files.get(v) };
}

const TEXT_APP_TYPES = ["json", "xml", "javascript", "x-www-form-urlencoded", "yaml", "graphql"];
const TEXT_MARKERS = ["{", "[", "<", "function", "var ", "const ", "let "];

/** Dify's test for "the response is a file": disposition header, then MIME type, then a look at the bytes. */
export function responseIsFile(headers: Record<string, string>, body: Uint8Array): boolean {
  const ct = (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const disp = headers["content-disposition"] ?? "";
  if (/^\s*attachment/i.test(disp) || /filename\*?=/i.test(disp)) return true;
  if (ct.startsWith("text/") && !ct.includes("csv")) return false;
  if (ct.startsWith("application/")) {
    if (TEXT_APP_TYPES.some((t) => ct.includes(t))) return false;
    try {
      const sample = new TextDecoder("utf-8", { fatal: true }).decode(body.slice(0, 1024));
      if (TEXT_MARKERS.some((m) => sample.includes(m))) return false;
    } catch {
      // not UTF-8: binary
    }
    return true;
  }
  return ["image/", "audio/", "video/"].some((m) => ct.startsWith(m));
}

function decodeText(headers: Record<string, string>, body: Uint8Array): string {
  const charset = /charset=([^;]+)/i
    .exec(headers["content-type"] ?? "")?.[1]
    ?.trim()
    .replace(/^"|"$/g, "");
  try {
    return new TextDecoder(charset || "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function filenameFor(url: string, headers: Record<string, string>, mime: string): string {
  const disp = headers["content-disposition"] ?? "";
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disp)?.[1];
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disp)?.[1];
  if (star) return decodeURIComponent(star.trim().replace(/^"|"$/g, ""));
  if (plain) return plain.trim();
  const fromUrl = url.split("?")[0]?.split("/").pop() ?? "";
  if (fromUrl) return fromUrl;
  const ext = mime.split("/")[1]?.split("+")[0] ?? "bin";
  return `file.${ext}`;
}

function errorStrategySet(c: HttpConfig): boolean {
  return (
    c.error_strategy === "fail-branch" || c.error_strategy === "default-value" || c.retry_config?.retry_enabled === true
  );
}

export const httpRequestNode = defineNode<HttpConfig>({
  type: "http-request",
  label: "HTTP Request",
  category: "tool",
  purpose:
    "Sends an HTTP request built from templates (URL, headers, query, body) and outputs the status, body text, headers and any returned file.",
  notes: [
    "headers and params are newline-separated key:value lines; each side may hold {{#…#}} references.",
    "A json body is rendered, repaired and parsed before sending.",
    "A non-2xx status is a success unless the node has an error strategy or retry, then it fails.",
    "Timeouts are capped at connect 10 s, read 600 s, write 600 s; responses at 1 MB of text or 10 MB of binary.",
  ],
  configSchema: HttpConfig,
  example: {
    method: "get",
    url: "https://api.example.com/items?q={{#start.query#}}",
    authorization: { type: "no-auth", config: null },
    headers: "Accept:application/json",
    params: "",
    body: { type: "none", data: [] },
    timeout: { connect: 10, read: 60, write: 20 },
  },
  outputs: () => [
    { name: "status_code", type: "number" },
    { name: "body", type: "string" },
    { name: "headers", type: "object" },
    { name: "files", type: "array[file]" },
  ],
  inputs: (c) => httpInputs(c),
  ports: () => SOURCE,
  texts: (c) => httpTexts(c),
  rules: (c, sctx) => httpRules(c, sctx.node.id),
  async execute(ctx) {
    const c = ctx.config;
    const http = ctx.services.http;
    if (!http) {
      throw new NotConfiguredError(
        "http.not_configured",
        `${nodeLabel(ctx.node)} needs an HTTP client, but none is configured`,
        {
          nodeId: ctx.node.id,
        },
      );
    }
    const method = c.method.toLowerCase();
    if (!(HTTP_METHODS as readonly string[]).includes(method))
      fail(ctx, "http.method_invalid", `method "${c.method}" is not supported`, { field: "method" });
    const render = (s: string) => ctx.render(s);

    let url = render(c.url).trim();
    if (!url) fail(ctx, "http.url_missing", "the URL is empty", { field: "url" });
    if (!/^https?:\/\//i.test(url))
      fail(ctx, "http.invalid_url", `url should start with http:// or https://, got "${url}"`, { field: "url" });
    const params = parseKeyValueLines(c.params, render);
    if (params.length > 0) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        fail(ctx, "http.invalid_url", `not a valid URL: "${url}"`, { field: "url" });
      }
      for (const [k, v] of params) u.searchParams.append(k, v);
      url = u.toString();
    }

    const headers: Record<string, string> = {};
    for (const [k, v] of parseKeyValueLines(c.headers, render)) {
      if (!HEADER_NAME.test(k)) {
        ctx.emit({ type: "log", text: `skipped header with an invalid name: ${JSON.stringify(k)}` });
        continue;
      }
      headers[k] = v;
    }
    const hasHeader = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase());
    const dropHeader = (name: string) => {
      for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
    };

    if (c.authorization.type === "api-key") {
      const cfg = c.authorization.config;
      const key = render(cfg?.api_key ?? "").trim();
      if (!key)
        fail(ctx, "http.api_key_missing", "API key is required for authorization but was empty", {
          field: "authorization.config.api_key",
        });
      const header = cfg?.header?.trim() || "Authorization";
      const type = cfg?.type ?? "bearer";
      if (type === "bearer") headers[header] = `Bearer ${key}`;
      else if (type === "basic")
        headers[header] = `Basic ${key.includes(":") ? Buffer.from(key, "utf8").toString("base64") : key}`;
      else if (type === "custom" && cfg?.header?.trim()) headers[header] = key;
    }

    const bodyType = c.body?.type ?? "none";
    const items = bodyItems(c);
    let body: string | Uint8Array | FormData | undefined;
    const single = (): BodyItem | undefined => {
      if (items.length > 1)
        fail(ctx, "http.body_items", `${bodyType} body type should have exactly one item`, { field: "body.data" });
      return items[0];
    };
    switch (bodyType) {
      case "none":
        break;
      case "raw-text":
        body = render(single()?.value ?? "");
        if (!hasHeader("content-type")) headers["Content-Type"] = "text/plain";
        break;
      case "json": {
        const src = render(single()?.value ?? "");
        if (src.trim() !== "") {
          try {
            body = JSON.stringify(JSON.parse(jsonrepair(src)));
          } catch {
            fail(ctx, "http.body_json_invalid", `Failed to parse JSON: ${src.slice(0, 300)}`, {
              field: "body.data[0].value",
            });
          }
        } else body = "";
        if (!hasHeader("content-type")) headers["Content-Type"] = "application/json";
        break;
      }
      case "x-www-form-urlencoded": {
        const form = new URLSearchParams();
        for (const it of items) form.append(render(it.key), render(it.value));
        body = form.toString();
        if (!hasHeader("content-type")) headers["Content-Type"] = "application/x-www-form-urlencoded";
        break;
      }
      case "form-data": {
        const form = new FormData();
        for (const [i, it] of items.entries()) {
          const key = render(it.key);
          if (it.type === "file") {
            const { file, bytes } = await fileBytes(ctx, it.file, `body.data[${i}].file`);
            form.append(
              key,
              new Blob([bytes as Uint8Array<ArrayBuffer>], { type: file.mime_type || "application/octet-stream" }),
              file.filename,
            );
          } else form.append(key, render(it.value));
        }
        body = form;
        // The client writes the multipart boundary into Content-Type itself.
        dropHeader("content-type");
        break;
      }
      case "binary": {
        const { file, bytes } = await fileBytes(ctx, single()?.file, "body.data[0].file");
        body = bytes;
        if (!hasHeader("content-type")) headers["Content-Type"] = file.mime_type || "application/octet-stream";
        break;
      }
      default:
        fail(ctx, "http.body_type_invalid", `body type "${bodyType}" is not supported`, { field: "body.type" });
    }

    const connect = capSeconds(c.timeout?.connect, HTTP_LIMITS.connect);
    const read = capSeconds(c.timeout?.read, HTTP_LIMITS.read);
    const write = capSeconds(c.timeout?.write, HTTP_LIMITS.write);
    let res: HttpResponseData;
    try {
      res = await http.request({
        method: method.toUpperCase(),
        url,
        headers,
        body,
        timeoutMs: (connect + read + write) * 1000,
        timeouts: { connectMs: connect * 1000, readMs: read * 1000, writeMs: write * 1000 },
        maxResponseBytes: HTTP_LIMITS.maxBinaryBytes,
        sslVerify: c.ssl_verify ?? true,
        signal: ctx.signal,
      });
    } catch (err) {
      if (err instanceof NodeExecutionError || err instanceof NotConfiguredError) throw err;
      const code = err instanceof WeftError ? err.code : "http.request_failed";
      fail(ctx, code, (err as Error)?.message ?? String(err), err instanceof WeftError ? err.details : {});
    }

    const isFile = responseIsFile(res.headers, res.body);
    if (!isFile && res.body.byteLength > HTTP_LIMITS.maxTextBytes) {
      fail(ctx, "http.response_too_large", `text response is ${res.body.byteLength} bytes, more than the 1 MB limit`);
    }
    let text = "";
    const files: FileValue[] = [];
    if (isFile) {
      if (!ctx.services.files) {
        throw new NotConfiguredError(
          "files.not_configured",
          `${nodeLabel(ctx.node)} received a file, but no file store is configured`,
          {
            nodeId: ctx.node.id,
          },
        );
      }
      const mime = (res.headers["content-type"] ?? "").split(";")[0]?.trim() || "application/octet-stream";
      files.push(
        await ctx.services.files.put(res.body, { filename: filenameFor(url, res.headers, mime), mimeType: mime }),
      );
    } else text = decodeText(res.headers, res.body);

    const outputs = { status_code: res.status, body: text, headers: res.headers, files };
    if ((res.status < 200 || res.status >= 300) && errorStrategySet(c)) {
      throw new NodeExecutionError(
        "http.status",
        `${nodeLabel(ctx.node)}: request failed with status code ${res.status}`,
        ctx.node.id,
        {
          status_code: res.status,
          body: text.slice(0, 1000),
        },
      );
    }
    return { outputs, meta: { request: { method: method.toUpperCase(), url, headers: Object.keys(headers) } } };
  },
});
