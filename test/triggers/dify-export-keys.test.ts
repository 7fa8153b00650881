// A schedule and a webhook node added the way the studio adds them (POST /api/node-template → newNodeConfig, then
// { id, type, title, config, canvas }) export with exactly the data keys Dify's own studio writes, and Dify's
// node-data entities (restated below as zod schemas) accept them. Sources read (langgenius/dify):
//   web/app/components/workflow/nodes/trigger-schedule/types.ts      ScheduleTriggerNodeType
//   web/app/components/workflow/nodes/trigger-schedule/constants.ts  getDefaultScheduleConfig (visual_config keys)
//   web/app/components/workflow/nodes/trigger-webhook/default.ts     defaultValue
//   web/app/components/workflow/nodes/trigger-webhook/utils/raw-variable.ts  createWebhookRawVariable
//   api/core/workflow/nodes/trigger_schedule/entities.py             TriggerScheduleNodeData, VisualConfig
//   api/core/workflow/nodes/trigger_webhook/entities.py              WebhookData, WebhookParameter
// CommonNodeType (web/app/components/workflow/types.ts) gives every node's type, title, desc and selected.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { analyse } from "../../src/analysis/index.js";
import { toDifyDocument } from "../../src/dsl/dify/export.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { newNodeConfig } from "../../src/server/new-node.js";

const COMMON_KEYS = ["type", "title", "desc", "selected"];
// trigger-schedule/types.ts (ScheduleTriggerNodeType's own fields)
const DIFY_SCHEDULE_KEYS = ["mode", "frequency", "cron_expression", "visual_config", "timezone", "enabled"];
// trigger-schedule/constants.ts (the visual_config a new node gets)
const DIFY_VISUAL_CONFIG_KEYS = ["time", "weekdays", "on_minute", "monthly_days"];
// trigger-webhook/default.ts (defaultValue)
const DIFY_WEBHOOK_KEYS = [
  "webhook_url",
  "method",
  "content_type",
  "headers",
  "params",
  "body",
  "async_mode",
  "status_code",
  "response_body",
  "variables",
];
// trigger-webhook/utils/raw-variable.ts
const DIFY_RAW_VARIABLE_KEYS = ["variable", "label", "value_type", "value_selector", "required"];

// BaseNodeData: title required, desc optional.
const BaseNodeData = { title: z.string(), desc: z.string().nullable().optional() };

// trigger_schedule/entities.py
const TriggerScheduleNodeData = z.object({
  ...BaseNodeData,
  type: z.literal("trigger-schedule"),
  mode: z.string(),
  frequency: z.string().nullable(),
  cron_expression: z.string().nullable(),
  visual_config: z.record(z.string(), z.unknown()).nullable(),
  timezone: z.string(),
});
const VisualConfig = z.object({
  on_minute: z.number().int().min(0).max(59).nullable(),
  time: z.string().nullable(),
  weekdays: z.array(z.enum(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])).nullable(),
  monthly_days: z.array(z.union([z.number().int(), z.literal("last")])).nullable(),
});

// trigger_webhook/entities.py: method is lower-cased before the enum check; parameter types are _WEBHOOK_ALLOWED_TYPES.
const WebhookParameter = z.object({
  name: z.string(),
  type: z.enum([
    "string",
    "number",
    "boolean",
    "object",
    "array[string]",
    "array[number]",
    "array[boolean]",
    "array[object]",
    "file",
  ]),
  required: z.boolean(),
});
const WebhookData = z.object({
  ...BaseNodeData,
  type: z.literal("trigger-webhook"),
  method: z
    .string()
    .transform((m) => m.toLowerCase())
    .pipe(z.enum(["get", "post", "head", "patch", "put", "delete"])),
  content_type: z.enum([
    "application/json",
    "multipart/form-data",
    "application/x-www-form-urlencoded",
    "text/plain",
    "application/octet-stream",
  ]),
  headers: z.array(WebhookParameter),
  params: z.array(WebhookParameter),
  body: z.array(WebhookParameter),
  status_code: z.number().int(),
  response_body: z.string(),
});

/** A draft with the two trigger nodes added as the studio's palette adds them. */
function studioDraft(): Workflow {
  const wf: Workflow = {
    weft: 1,
    name: "triggers",
    description: "",
    mode: "workflow",
    nodes: [],
    edges: [],
    environment_variables: [],
    conversation_variables: [],
  };
  for (const [id, type, title] of [
    ["1", "trigger-schedule", "Schedule trigger"],
    ["2", "trigger-webhook", "Webhook trigger"],
  ] as const) {
    const config = newNodeConfig(type, wf);
    wf.nodes.push({ id, type, title, config, canvas: { position: { x: Number(id) * 300, y: 0 } } });
  }
  return wf;
}

function exportedData(): Record<string, Record<string, unknown>> {
  const doc = toDifyDocument(studioDraft()) as {
    workflow: { graph: { nodes: Array<{ data: Record<string, unknown> }> } };
  };
  return Object.fromEntries(doc.workflow.graph.nodes.map((n) => [n.data.type as string, n.data]));
}

describe("trigger nodes built in the studio export with Dify's keys", () => {
  it("schedule: exactly ScheduleTriggerNodeType's keys, accepted by TriggerScheduleNodeData and VisualConfig", () => {
    const data = exportedData()["trigger-schedule"]!;
    expect(Object.keys(data).sort()).toEqual([...COMMON_KEYS, ...DIFY_SCHEDULE_KEYS].sort());
    const visual = data.visual_config as Record<string, unknown>;
    expect(Object.keys(visual).sort()).toEqual([...DIFY_VISUAL_CONFIG_KEYS].sort());
    expect(TriggerScheduleNodeData.safeParse(data).error).toBeUndefined();
    expect(VisualConfig.safeParse(visual).error).toBeUndefined();
    expect(typeof data.enabled).toBe("boolean");
  });

  it("webhook: exactly the keys of Dify's defaultValue, accepted by WebhookData", () => {
    const data = exportedData()["trigger-webhook"]!;
    expect(Object.keys(data).sort()).toEqual([...COMMON_KEYS, ...DIFY_WEBHOOK_KEYS].sort());
    expect(WebhookData.safeParse(data).error).toBeUndefined();
    const vars = data.variables as Array<Record<string, unknown>>;
    expect(vars.map((v) => Object.keys(v).sort())).toEqual([[...DIFY_RAW_VARIABLE_KEYS].sort()]);
    expect(vars[0]).toMatchObject({ variable: "_webhook_raw", value_type: "object", required: true });
    expect(typeof data.async_mode).toBe("boolean");
  });

  it("the templates are valid weft nodes too (no diagnostics on either trigger)", () => {
    const res = analyse(studioDraft(), nodeCatalogue);
    const own = res.diagnostics.filter((d) => (d.nodeId === "1" || d.nodeId === "2") && d.code.startsWith("trigger."));
    expect(own).toEqual([]);
  });
});
