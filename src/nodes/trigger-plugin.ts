import { z } from "zod";
import { NodeExecutionError } from "../ir/errors.js";
import { commonFields, defineNode } from "./common.js";
import { makeDiagnostic } from "./diagnostics.js";

const PluginConfig = z.object({ ...commonFields }).loose();
type PluginConfig = z.infer<typeof PluginConfig>;

const what = (c: PluginConfig) =>
  [c.provider_id, c.event_name].filter((v) => typeof v === "string" && v !== "").join("/") || "a plugin event";

/**
 * Dify's plugin trigger: an event of a marketplace plugin's subscription, delivered by Dify's plugin daemon.
 * Weft keeps it (import → export unchanged) but has no plugin runtime, so a run refuses it with a typed error.
 */
export const triggerPluginNode = defineNode<PluginConfig>({
  type: "trigger-plugin",
  label: "Plugin trigger",
  category: "io",
  purpose: "Dify plugin event trigger: kept on import and export, not runnable in Weft (no plugin daemon).",
  notes: ["Not runnable here: use trigger-webhook and point the service at the webhook URL instead."],
  configSchema: PluginConfig,
  entry: true,
  modes: ["workflow"],
  outputs: () => [],
  inputs: () => [],
  ports: () => ["source"],
  rules: (c, ctx) => [
    makeDiagnostic(
      ctx.node.id,
      "trigger.plugin_unsupported",
      "type",
      `trigger-plugin (${what(c)}) needs Dify's plugin daemon and a plugin subscription, which Weft does not have; it is kept for export but never fires`,
      "warning",
    ),
  ],
  async execute(ctx) {
    throw new NodeExecutionError(
      "trigger.plugin_unsupported",
      `trigger-plugin node "${ctx.node.id}" (${what(ctx.config)}) cannot run: Weft has no Dify plugin daemon to deliver its events; replace it with a trigger-webhook node`,
      ctx.node.id,
      { field: "type" },
    );
  },
});
