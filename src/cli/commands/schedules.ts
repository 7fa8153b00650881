import type { Command } from "@commander-js/extra-typings";
import { listSchedules } from "../../triggers/schedule/listing.js";
import { DB_HELP } from "../config.js";
import { printJson } from "../output.js";
import { withStores } from "../stores.js";

export function registerScheduleCommands(program: Command): void {
  const group = program
    .command("schedules")
    .description("schedule triggers of published apps: next fire time, enabled, last tick");
  group
    .command("list")
    .description("every published schedule: trigger id, app, cron and zone, next fire time, enabled, last tick")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const list = await withStores(opts, listSchedules);
      if (opts.json) return printJson(list);
      if (list.length === 0) process.stdout.write("no published app has a schedule trigger\n");
      for (const s of list) {
        if (s.error) {
          process.stdout.write(`-  ${s.appId}  ${s.nodeId}  not running: ${s.error.message}\n`);
          continue;
        }
        const next = s.enabled ? `next ${s.nextFire}` : "disabled";
        process.stdout.write(
          `${s.triggerId ?? "-"}  ${s.appId}  ${s.nodeId}  "${s.cron}" ${s.timezone}  ${next}  missed: ${s.missedTicks}\n`,
        );
      }
    });
}
