import { z } from "zod";
import { SYSTEM_VARIABLES } from "../ir/system.js";
import { JSON_VALUE_TYPES, normaliseType } from "../ir/types.js";
import { commonFields, defineNode } from "./common.js";
import { makeDiagnostic } from "./diagnostics.js";

/** Dify's webhook parameter types (segment types a webhook value may have). */
export const WEBHOOK_PARAM_TYPES = [...JSON_VALUE_TYPES, "file"] as const;
export const WEBHOOK_METHODS = ["get", "post", "head", "patch", "put", "delete"] as const;
export const WEBHOOK_CONTENT_TYPES = [
  "application/json",
  "multipart/form-data",
  "application/x-www-form-urlencoded",
  "text/plain",
  "application/octet-stream",
] as const;

const Param = z
  .object({ name: z.string().min(1), type: z.string().default("string"), required: z.boolean().default(false) })
  .loose();
export type WebhookParam = z.infer<typeof Param>;

const WebhookConfig = z
  .object({
    ...commonFields,
    // Dify lower-cases the method on read; exports may carry either case.
    method: z.string().default("get"),
    content_type: z.string().default("application/json"),
    headers: z.array(Param).default([]),
    params: z.array(Param).default([]),
    body: z.array(Param).default([]),
    status_code: z.coerce.number().default(200),
    response_body: z.string().default(""),
    timeout: z.coerce.number().optional(),
  })
  .loose();
export type WebhookConfig = z.infer<typeof WebhookConfig>;

/** A declared name as the workflow reads it: Dify replaces `-` by `_` (headers such as X-Api-Key). */
export const sanitiseName = (name: string) => name.replaceAll("-", "_");

/** What the node publishes: one output per declared header, query and body parameter, and the raw data. */
function webhookOutputs(c: WebhookConfig) {
  const outs = [
    ...c.headers.map((h) => ({ name: sanitiseName(h.name), type: "string" as const })),
    ...c.params.map((p) => ({ name: p.name, type: normaliseType(p.type) })),
    ...c.body.map((b) => ({
      name: b.name,
      type: c.content_type === "text/plain" ? ("string" as const) : normaliseType(b.type),
    })),
  ];
  return [
    ...outs,
    { name: "_webhook_raw", type: "object" as const },
    ...SYSTEM_VARIABLES.map((s) => ({ name: `sys.${s.name}`, type: s.type })),
  ];
}

function checkParams(c: WebhookConfig, nodeId: string) {
  const out = [];
  const method = c.method.toLowerCase();
  if (!(WEBHOOK_METHODS as readonly string[]).includes(method))
    out.push(
      makeDiagnostic(
        nodeId,
        "trigger.webhook_method",
        "method",
        `method "${c.method}" is not one of ${WEBHOOK_METHODS.join(", ")}`,
      ),
    );
  if (!(WEBHOOK_CONTENT_TYPES as readonly string[]).includes(c.content_type))
    out.push(
      makeDiagnostic(
        nodeId,
        "trigger.webhook_content_type",
        "content_type",
        `content type "${c.content_type}" is not one of ${WEBHOOK_CONTENT_TYPES.join(", ")}`,
      ),
    );
  if (!Number.isInteger(c.status_code) || c.status_code < 100 || c.status_code > 599)
    out.push(
      makeDiagnostic(
        nodeId,
        "trigger.webhook_status",
        "status_code",
        `status_code ${c.status_code} is not an HTTP status (100–599)`,
      ),
    );
  const seen = new Set<string>();
  for (const group of ["headers", "params", "body"] as const) {
    for (const [i, p] of c[group].entries()) {
      if (!(WEBHOOK_PARAM_TYPES as readonly string[]).includes(p.type))
        out.push(
          makeDiagnostic(
            nodeId,
            "trigger.webhook_param_type",
            `${group}[${i}].type`,
            `parameter "${p.name}" has type "${p.type}"; allowed: ${WEBHOOK_PARAM_TYPES.join(", ")}`,
          ),
        );
      if (p.type === "file" && (group !== "body" || c.content_type !== "multipart/form-data"))
        out.push(
          makeDiagnostic(
            nodeId,
            "trigger.webhook_param_type",
            `${group}[${i}].type`,
            `file parameter "${p.name}" needs a multipart/form-data body`,
          ),
        );
      const name = group === "headers" ? sanitiseName(p.name) : p.name;
      if (seen.has(name))
        out.push(
          makeDiagnostic(
            nodeId,
            "trigger.webhook_duplicate",
            `${group}[${i}].name`,
            `output "${name}" is declared twice`,
          ),
        );
      seen.add(name);
    }
  }
  return out;
}

/** The value of a header, case-insensitively, `-` and `_` alike (as Dify reads them). */
function headerValue(headers: Record<string, unknown>, name: string): unknown {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const n = name.toLowerCase();
  return lower.get(n) ?? lower.get(n.replaceAll("-", "_")) ?? lower.get(n.replaceAll("_", "-")) ?? null;
}

export const triggerWebhookNode = defineNode<WebhookConfig>({
  type: "trigger-webhook",
  label: "Webhook trigger",
  category: "io",
  purpose:
    "Entry point started by an HTTP request to the app's webhook URL (/triggers/webhook/<id>): declares the method, content type and the header, query and body parameters the request carries.",
  notes: [
    "An entry node like start (no incoming edges); a workflow has a start node or trigger nodes, not both.",
    "Each declared header/query/body parameter is an output: {{#<id>.<name>#}} (a '-' in a header name becomes '_').",
    "The caller gets status_code and response_body at once; the run goes on without it.",
  ],
  configSchema: WebhookConfig,
  // Every key Dify's studio writes for a new webhook node (its default value), so a node added from the palette
  // exports as Dify's own export does (test/triggers/dify-export-keys.test.ts). webhook_url stays blank: the URL is
  // the trigger row's (/triggers/webhook/<id>), minted on publish.
  example: {
    desc: "",
    selected: false,
    webhook_url: "",
    method: "post",
    content_type: "application/json",
    headers: [],
    params: [],
    body: [{ name: "email", type: "string", required: true }],
    async_mode: true,
    status_code: 200,
    response_body: "",
    variables: [{ variable: "_webhook_raw", label: "raw", value_type: "object", value_selector: [], required: true }],
  },
  entry: true,
  modes: ["workflow"],
  outputs: (c) => webhookOutputs(c),
  inputs: () => [],
  ports: () => ["source"],
  rules: (c, ctx) => checkParams(c, ctx.node.id),
  async execute(ctx) {
    const data = (ctx.runInputs.webhook_data ?? {}) as Record<string, any>;
    const c = ctx.config;
    const outputs: Record<string, unknown> = {};
    for (const h of c.headers) outputs[sanitiseName(h.name)] = headerValue(data.headers ?? {}, h.name);
    for (const p of c.params) outputs[p.name] = data.query_params?.[p.name] ?? null;
    for (const b of c.body) {
      if (c.content_type === "text/plain") outputs[b.name] = String(data.body?.raw ?? "");
      else if (c.content_type === "application/octet-stream") outputs[b.name] = data.body?.raw ?? null;
      else if (b.type === "file") outputs[b.name] = data.files?.[b.name] ?? null;
      else outputs[b.name] = data.body?.[b.name] ?? null;
    }
    outputs._webhook_raw = data;
    for (const s of SYSTEM_VARIABLES) {
      const r = ctx.read(["sys", s.name]);
      if (r.found) outputs[`sys.${s.name}`] = r.value;
    }
    return { outputs };
  },
});
