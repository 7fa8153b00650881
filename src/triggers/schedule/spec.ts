import { z } from "zod";
import { ScheduleConfigError } from "./errors.js";

/**
 * What happens to ticks that fell while no scheduler ran (every process down, the trigger disabled):
 * `run_once` starts one run for all of them (what Dify's poller does: a schedule whose `next_run_at` has passed
 * is dispatched once and its next run is computed from now, so a backlog coalesces into one run);
 * `skip` starts none and waits for the next tick.
 */
export const MissedTickPolicySchema = z.enum(["run_once", "skip"]);
export type MissedTickPolicy = z.infer<typeof MissedTickPolicySchema>;
export const DEFAULT_MISSED_TICK_POLICY: MissedTickPolicy = "run_once";

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

/**
 * The fields of Dify's `trigger-schedule` node data this module reads (the node's own schema lives in the
 * registry); loose, so a node's other fields pass untouched, and every field optional as in Dify, where a
 * missing one is an error only for the frequency that needs it.
 */
export const ScheduleNodeConfigSchema = z
  .object({
    mode: z.string().optional(),
    frequency: z.string().nullish(),
    cron_expression: z.string().nullish(),
    timezone: z.string().nullish(),
    visual_config: z
      .object({
        time: z.string().nullish(),
        weekdays: z.array(z.string()).nullish(),
        on_minute: z.number().nullish(),
        monthly_days: z.array(z.union([z.number(), z.string()])).nullish(),
      })
      .passthrough()
      .nullish(),
    /** Weft's own addition: see `MissedTickPolicy`. Absent = Dify's behaviour. */
    missed_ticks: z.string().optional(),
  })
  .passthrough();
export type ScheduleNodeConfig = z.infer<typeof ScheduleNodeConfigSchema>;

/** A schedule reduced to what the scheduler computes with: a 5-field cron in an IANA zone, and the policy. */
export interface ScheduleSpec {
  cron: string;
  timezone: string;
  missedTicks: MissedTickPolicy;
}

/** Dify's 12-hour clock ("2:30 PM") as hour and minute of the day; anything else is refused. */
export function parseClockTime(raw: string, nodeId?: string): { hour: number; minute: number } {
  const m = /^\s*(\d{1,2}):(\d{2})\s+(AM|PM)\s*$/i.exec(raw);
  const bad = (why: string) =>
    new ScheduleConfigError("schedule.bad_time", `visual_config.time "${raw}" ${why}`, nodeId, "visual_config.time");
  if (!m) throw bad('is not a 12-hour time such as "9:30 AM"');
  const h = Number(m[1]);
  const minute = Number(m[2]);
  if (h < 1 || h > 12) throw bad("has an hour outside 1-12");
  if (minute > 59) throw bad("has a minute outside 0-59");
  const pm = m[3]!.toUpperCase() === "PM";
  return { hour: pm ? (h === 12 ? 12 : h + 12) : h === 12 ? 0 : h, minute };
}

function need<T>(v: T | null | undefined, field: string, frequency: string, nodeId?: string): T {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0))
    throw new ScheduleConfigError(
      "schedule.missing_field",
      `${field} is required for ${frequency} schedules`,
      nodeId,
      field,
    );
  return v;
}

/** The visual editor's settings as the cron expression Dify's backend derives from them (same field order). */
export function visualToCron(
  frequency: string | null | undefined,
  vc: ScheduleNodeConfig["visual_config"],
  nodeId?: string,
): string {
  const cfg = vc ?? {};
  switch (frequency) {
    case "hourly": {
      const minute = need(cfg.on_minute, "visual_config.on_minute", "hourly", nodeId);
      if (!Number.isInteger(minute) || minute < 0 || minute > 59)
        throw new ScheduleConfigError(
          "schedule.bad_time",
          `visual_config.on_minute must be a whole minute 0-59, not ${minute}`,
          nodeId,
          "visual_config.on_minute",
        );
      return `${minute} * * * *`;
    }
    case "daily": {
      const t = parseClockTime(need(cfg.time, "visual_config.time", "daily", nodeId), nodeId);
      return `${t.minute} ${t.hour} * * *`;
    }
    case "weekly":
      return `${clock(cfg, "weekly", nodeId)} * * ${weekdays(need(cfg.weekdays, "visual_config.weekdays", "weekly", nodeId), nodeId)}`;
    case "monthly":
      return `${clock(cfg, "monthly", nodeId)} ${monthDays(need(cfg.monthly_days, "visual_config.monthly_days", "monthly", nodeId), nodeId)} * *`;
    default:
      throw new ScheduleConfigError(
        "schedule.bad_frequency",
        `frequency must be hourly, daily, weekly or monthly, not ${JSON.stringify(frequency ?? null)}`,
        nodeId,
        "frequency",
      );
  }
}

function clock(cfg: NonNullable<ScheduleNodeConfig["visual_config"]>, frequency: string, nodeId?: string): string {
  const t = parseClockTime(need(cfg.time, "visual_config.time", frequency, nodeId), nodeId);
  return `${t.minute} ${t.hour}`;
}

function weekdays(days: string[], nodeId?: string): string {
  const nums = days.map((d) => {
    const i = (WEEKDAYS as readonly string[]).indexOf(d);
    if (i < 0)
      throw new ScheduleConfigError(
        "schedule.bad_time",
        `visual_config.weekdays has "${d}"; use ${WEEKDAYS.join(", ")}`,
        nodeId,
        "visual_config.weekdays",
      );
    return i;
  });
  return [...new Set(nums)].sort((a, b) => a - b).join(",");
}

/** Day numbers ascending, then `L` for "last" (the last day of each month), as Dify writes them. */
function monthDays(days: Array<number | string>, nodeId?: string): string {
  const nums = new Set<number>();
  let last = false;
  for (const d of days) {
    if (d === "last") last = true;
    else if (typeof d === "number" && Number.isInteger(d) && d >= 1 && d <= 31) nums.add(d);
    else
      throw new ScheduleConfigError(
        "schedule.bad_time",
        `visual_config.monthly_days has ${JSON.stringify(d)}; use days 1-31 or "last"`,
        nodeId,
        "visual_config.monthly_days",
      );
  }
  return [...[...nums].sort((a, b) => a - b).map(String), ...(last ? ["L"] : [])].join(",");
}
