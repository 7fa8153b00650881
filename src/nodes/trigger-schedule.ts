import { createRequire } from "node:module";
import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { SYSTEM_VARIABLES } from "../ir/system.js";
import { commonFields, defineNode } from "./common.js";
import { makeDiagnostic } from "./diagnostics.js";

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

const VisualConfig = z
  .object({
    time: z.string().nullable().optional(),
    weekdays: z.array(z.string()).nullable().optional(),
    on_minute: z.number().nullable().optional(),
    monthly_days: z
      .array(z.union([z.number(), z.string()]))
      .nullable()
      .optional(),
  })
  .loose();

const ScheduleConfig = z
  .object({
    ...commonFields,
    mode: z.string().default("visual"),
    frequency: z.string().nullable().optional(),
    cron_expression: z.string().nullable().optional(),
    visual_config: VisualConfig.nullable().optional(),
    timezone: z.string().default("UTC"),
  })
  .loose();
export type ScheduleConfig = z.infer<typeof ScheduleConfig>;

/** Is `tz` an IANA time zone this runtime knows? */
export function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** "2:30 PM" (Dify's 12-hour visual time) → [14, 30], or undefined. */
export function parseVisualTime(t: string): [number, number] | undefined {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(AM|PM)\s*$/i.exec(t);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h < 1 || h > 12 || min > 59) return undefined;
  return [(h % 12) + (m[3]!.toUpperCase() === "PM" ? 12 : 0), min];
}

/**
 * Test-only: with `WEFT_SCHEDULE_SECONDS=1` a cron expression may also have a leading seconds field (6 fields,
 * cron-parser's syntax), so the real-clock tests tick every few seconds on the real clock instead of once a
 * minute. Dify has no seconds field; a file using one is refused everywhere else.
 */
export const SECONDS_CRON_ENV = "WEFT_SCHEDULE_SECONDS";
export const cronFieldsAllowed = (n: number): boolean => n === 5 || (n === 6 && process.env[SECONDS_CRON_ENV] === "1");

function cronRules(c: ScheduleConfig, nodeId: string): Diagnostic[] {
  const expr = c.cron_expression?.trim() ?? "";
  if (expr === "")
    return [makeDiagnostic(nodeId, "trigger.schedule_cron", "cron_expression", "cron mode needs a cron_expression")];
  if (!cronFieldsAllowed(expr.split(/\s+/).length))
    return [
      makeDiagnostic(
        nodeId,
        "trigger.schedule_cron",
        "cron_expression",
        `cron expression "${expr}" must have 5 fields (minute hour day month weekday)`,
      ),
    ];
  try {
    // cron-parser loads when a schedule is checked, not with the node registry every command loads.
    const { CronExpressionParser } = createRequire(import.meta.url)("cron-parser") as typeof import("cron-parser");
    CronExpressionParser.parse(expr, { tz: validTimezone(c.timezone) ? c.timezone : "UTC" });
    return [];
  } catch (e) {
    return [
      makeDiagnostic(
        nodeId,
        "trigger.schedule_cron",
        "cron_expression",
        `cron expression "${expr}" is invalid: ${(e as Error).message}`,
      ),
    ];
  }
}

function visualRules(c: ScheduleConfig, nodeId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const v = c.visual_config ?? {};
  const f = c.frequency ?? "";
  if (!["hourly", "daily", "weekly", "monthly"].includes(f))
    return [
      makeDiagnostic(
        nodeId,
        "trigger.schedule_frequency",
        "frequency",
        `frequency "${f}" is not one of hourly, daily, weekly, monthly`,
      ),
    ];
  if (f === "hourly") {
    const m = v.on_minute ?? 0;
    if (!Number.isInteger(m) || m < 0 || m > 59)
      out.push(
        makeDiagnostic(
          nodeId,
          "trigger.schedule_visual",
          "visual_config.on_minute",
          `on_minute ${m} is not a minute 0–59`,
        ),
      );
    return out;
  }
  if (!parseVisualTime(v.time ?? "12:00 AM"))
    out.push(
      makeDiagnostic(
        nodeId,
        "trigger.schedule_visual",
        "visual_config.time",
        `time "${v.time}" is not a 12-hour time such as "2:30 PM"`,
      ),
    );
  if (f === "weekly") {
    const days = v.weekdays ?? [];
    if (days.length === 0)
      out.push(
        makeDiagnostic(
          nodeId,
          "trigger.schedule_visual",
          "visual_config.weekdays",
          "a weekly schedule needs at least one weekday",
        ),
      );
    for (const [i, d] of days.entries())
      if (!(WEEKDAYS as readonly string[]).includes(d))
        out.push(
          makeDiagnostic(
            nodeId,
            "trigger.schedule_visual",
            `visual_config.weekdays[${i}]`,
            `weekday "${d}" is not one of ${WEEKDAYS.join(", ")}`,
          ),
        );
  }
  if (f === "monthly") {
    const days = v.monthly_days ?? [];
    if (days.length === 0)
      out.push(
        makeDiagnostic(
          nodeId,
          "trigger.schedule_visual",
          "visual_config.monthly_days",
          "a monthly schedule needs at least one day",
        ),
      );
    for (const [i, d] of days.entries())
      if (!(d === "last" || (typeof d === "number" && Number.isInteger(d) && d >= 1 && d <= 31)))
        out.push(
          makeDiagnostic(
            nodeId,
            "trigger.schedule_visual",
            `visual_config.monthly_days[${i}]`,
            `day ${JSON.stringify(d)} is not 1–31 or "last"`,
          ),
        );
  }
  return out;
}

/**
 * The payload a schedule run starts with: the fire time in the trigger's time zone, ISO 8601 with its offset.
 * The schedule side passes it to startTriggeredRun.
 */
export function scheduleFirePayload(fireTime: Date, timezone: string): Record<string, unknown> {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "longOffset",
    })
      .formatToParts(fireTime)
      .map((p) => [p.type, p.value]),
  );
  const offset = String(parts.timeZoneName ?? "GMT")
    .replace(/^GMT$/, "GMT+00:00")
    .replace("GMT", "");
  return {
    current_time: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
    timezone,
  };
}

export const triggerScheduleNode = defineNode<ScheduleConfig>({
  type: "trigger-schedule",
  label: "Schedule trigger",
  category: "io",
  purpose:
    'Entry point started on a schedule of the published app: visual (hourly at on_minute, daily/weekly/monthly at time "h:mm AM") or a 5-field cron expression, in an IANA timezone.',
  notes: [
    "An entry node like start (no incoming edges); a workflow has a start node or trigger nodes, not both.",
    "Outputs: {{#<id>.current_time#}} (the fire time, ISO 8601 in the timezone) and {{#<id>.timezone#}}.",
    'Every morning at 8: mode "visual", frequency "daily", visual_config {time: "8:00 AM"}; or mode "cron", cron_expression "0 8 * * *".',
  ],
  configSchema: ScheduleConfig,
  // Every key Dify's studio writes for a new schedule node (its default value, timezone filled in), so a node added
  // from the palette exports as Dify's own export does (test/triggers/dify-export-keys.test.ts).
  example: {
    desc: "",
    selected: false,
    mode: "visual",
    frequency: "daily",
    cron_expression: "",
    visual_config: { time: "8:00 AM", weekdays: ["mon"], on_minute: 0, monthly_days: [1] },
    timezone: "UTC",
    enabled: true,
  },
  entry: true,
  modes: ["workflow"],
  outputs: () => [
    { name: "current_time", type: "string" },
    { name: "timezone", type: "string" },
    ...SYSTEM_VARIABLES.map((s) => ({ name: `sys.${s.name}`, type: s.type })),
  ],
  inputs: () => [],
  ports: () => ["source"],
  rules(c, ctx) {
    const id = ctx.node.id;
    const out: Diagnostic[] = [];
    if (!validTimezone(c.timezone))
      out.push(
        makeDiagnostic(
          id,
          "trigger.schedule_timezone",
          "timezone",
          `timezone "${c.timezone}" is not an IANA time zone (e.g. Europe/Berlin, UTC)`,
        ),
      );
    if (c.mode === "cron") out.push(...cronRules(c, id));
    else if (c.mode === "visual") out.push(...visualRules(c, id));
    else out.push(makeDiagnostic(id, "trigger.schedule_mode", "mode", `mode "${c.mode}" is not visual or cron`));
    return out;
  },
  async execute(ctx) {
    // A run started by hand (no fire time given) fires "now", as Dify's debug run does.
    const given = ctx.runInputs.current_time;
    const outputs: Record<string, unknown> =
      typeof given === "string" && given !== ""
        ? { current_time: given, timezone: ctx.runInputs.timezone ?? ctx.config.timezone }
        : scheduleFirePayload(ctx.services.now(), ctx.config.timezone);
    for (const s of SYSTEM_VARIABLES) {
      const r = ctx.read(["sys", s.name]);
      if (r.found) outputs[`sys.${s.name}`] = r.value;
    }
    return { outputs };
  },
});
