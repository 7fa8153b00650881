import type { Command } from "@commander-js/extra-typings";
import { listTriggers, type TriggerListing } from "../../triggers/listing.js";
import { DB_HELP } from "../config.js";
import { CliError, EXIT, printJson } from "../output.js";
import { withStores } from "../stores.js";

const DEFAULT_BASE_URL = "http://127.0.0.1:3000";

/** One line per trigger: id, type, app, node, the URL or next fire time, enabled. */
function line(t: TriggerListing): string {
  const where =
    t.type === "webhook"
      ? t.url
      : t.type === "schedule"
        ? t.error
          ? `not running: ${t.error.message}`
          : `"${t.cron}" ${t.timezone}  ${t.nextFire ? `next ${t.nextFire}` : "no next fire"}`
        : "plugin triggers do not run here (no plugin daemon)";
  return `${t.id}  ${t.type.padEnd(8)} ${t.appId}  ${t.nodeId}  ${where}  ${t.enabled ? "enabled" : "disabled"}\n`;
}

export function registerTriggerCommands(program: Command): void {
  const group = program
    .command("triggers")
    .description("triggers of published apps (webhooks, schedules): URL or next fire time, enable, disable");
  group
    .command("list")
    .description("every trigger (of one app): id, type, app, node, webhook URL or next fire time, enabled")
    .argument("[app-id]")
    .option(
      "--base-url <url>",
      "the server's public URL, for webhook URLs (default WEFT_PUBLIC_URL or http://127.0.0.1:3000)",
    )
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (appId, opts) => {
      const baseUrl = opts.baseUrl ?? process.env.WEFT_PUBLIC_URL ?? DEFAULT_BASE_URL;
      const list = await withStores(opts, async (stores) => {
        if (appId && !(await stores.apps.getApp(appId)))
          throw new CliError("app.not_found", `no app with id ${appId} (see \`weft apps list\`)`, EXIT.invalid);
        return listTriggers(stores, { appId, baseUrl });
      });
      if (opts.json) return printJson(list);
      if (list.length === 0)
        process.stdout.write(
          `no triggers${appId ? ` in app ${appId}` : ""}: publish an app whose entry is a trigger node\n`,
        );
      for (const t of list) process.stdout.write(line(t));
    });
  for (const enabled of [true, false])
    group
      .command(enabled ? "enable" : "disable")
      .description(
        enabled
          ? "enable a trigger (its webhook answers, its schedule fires)"
          : "disable a trigger (webhook 404, schedule does not fire)",
      )
      .argument("<trigger-id>")
      .option("--db <spec>", DB_HELP)
      .option("--config <path>", "weft.config.json")
      .action(async (id, opts) => {
        const row = await withStores(opts, (stores) => stores.triggers.setEnabled(id, enabled));
        if (!row)
          throw new CliError(
            "trigger.not_found",
            `no trigger with id ${id} (see \`weft triggers list\`)`,
            EXIT.invalid,
          );
        process.stdout.write(`${row.id} ${enabled ? "enabled" : "disabled"}\n`);
      });
}
