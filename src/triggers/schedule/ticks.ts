import { CronExpressionParser } from "cron-parser";
import { cronFieldsAllowed } from "../../nodes/trigger-schedule.js";
import { ScheduleConfigError } from "./errors.js";
import {
  DEFAULT_MISSED_TICK_POLICY,
  type MissedTickPolicy,
  MissedTickPolicySchema,
  ScheduleNodeConfigSchema,
  type ScheduleSpec,
  visualToCron,
} from "./spec.js";

// Dify accepts croniter's predefined names; these are the ones both croniter and cron-parser read.
const PREDEFINED: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** An IANA zone name the runtime knows ("UTC", "Europe/Berlin"); anything else is refused, never taken as UTC. */
function checkTimezone(tz: string, nodeId?: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz;
  } catch {
    throw new ScheduleConfigError(
      "schedule.bad_timezone",
      `timezone "${tz}" is not an IANA time zone name (such as "UTC" or "Europe/Berlin")`,
      nodeId,
      "timezone",
    );
  }
}

/** Dify's rule: exactly five fields (minute hour day month weekday) or a predefined name. */
export function checkCron(raw: string, timezone: string, nodeId?: string): string {
  const expr = raw.trim();
  const fields = expr.split(/\s+/);
  const bad = (why: string) =>
    new ScheduleConfigError("schedule.bad_cron", `cron_expression "${raw}" ${why}`, nodeId, "cron_expression");
  if (expr.startsWith("@")) {
    if (!PREDEFINED[expr.toLowerCase()])
      throw bad(`is not one of the predefined names ${Object.keys(PREDEFINED).join(", ")}`);
  } else if (!cronFieldsAllowed(fields.length)) {
    throw bad(`has ${fields.length} fields; a schedule needs exactly 5 (minute hour day-of-month month day-of-week)`);
  }
  try {
    CronExpressionParser.parse(PREDEFINED[expr.toLowerCase()] ?? expr, { tz: timezone });
  } catch (e) {
    throw bad(`cannot be read: ${(e as Error).message}`);
  }
  return expr;
}

/** A trigger-schedule node's configuration as the cron, zone and missed-tick policy the scheduler runs. */
export function scheduleSpecOf(config: unknown, nodeId?: string): ScheduleSpec {
  const parsed = ScheduleNodeConfigSchema.safeParse(config ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".") || "config";
    throw new ScheduleConfigError("schedule.bad_config", `${field}: ${issue.message}`, nodeId, field);
  }
  const c = parsed.data;
  const timezone = checkTimezone(c.timezone || "UTC", nodeId);
  const mode = c.mode ?? "visual";
  let cron: string;
  if (mode === "cron") {
    if (!c.cron_expression?.trim())
      throw new ScheduleConfigError(
        "schedule.missing_field",
        "cron_expression is required in cron mode",
        nodeId,
        "cron_expression",
      );
    cron = checkCron(c.cron_expression, timezone, nodeId);
  } else if (mode === "visual") {
    cron = checkCron(visualToCron(c.frequency, c.visual_config, nodeId), timezone, nodeId);
  } else {
    throw new ScheduleConfigError(
      "schedule.bad_mode",
      `mode must be "visual" or "cron", not ${JSON.stringify(mode)}`,
      nodeId,
      "mode",
    );
  }
  return { cron, timezone, missedTicks: policyOf(c.missed_ticks, nodeId) };
}

function policyOf(raw: string | undefined, nodeId?: string): MissedTickPolicy {
  if (raw === undefined) return DEFAULT_MISSED_TICK_POLICY;
  const p = MissedTickPolicySchema.safeParse(raw);
  if (!p.success)
    throw new ScheduleConfigError(
      "schedule.bad_policy",
      `missed_ticks must be "run_once" or "skip", not ${JSON.stringify(raw)}`,
      nodeId,
      "missed_ticks",
    );
  return p.data;
}

const parse = (spec: Pick<ScheduleSpec, "cron" | "timezone">, at: number) =>
  CronExpressionParser.parse(PREDEFINED[spec.cron.toLowerCase()] ?? spec.cron, {
    tz: spec.timezone,
    currentDate: new Date(at),
  });

/** The next `count` ticks strictly after `after` (ms since the epoch); zones and DST as the cron library has them. */
export function nextTicks(spec: Pick<ScheduleSpec, "cron" | "timezone">, after: number, count = 1): number[] {
  const it = parse(spec, after);
  const out: number[] = [];
  while (out.length < count && it.hasNext()) out.push(it.next().getTime());
  return out;
}

/** The latest tick at or before `at`, or undefined when the expression has none. */
export function latestTick(spec: Pick<ScheduleSpec, "cron" | "timezone">, at: number): number | undefined {
  const it = parse(spec, at + 1);
  return it.hasPrev() ? it.prev().getTime() : undefined;
}

/**
 * What a scheduler does at `now` for a schedule whose last tick dealt with is `lastTick`:
 * nothing (no tick due), fire the latest due tick, or skip past it. A due tick is on time while it is at most
 * `graceMs` old (some scheduler was running then and fires it); older ones were missed, and the policy decides.
 * `missed` counts the due ticks this decision passes over without a run of their own (at most 1000 are counted).
 */
export type TickDecision =
  | { kind: "none" }
  | { kind: "fire"; tick: number; missed: number }
  | { kind: "skip"; tick: number; missed: number };

export function decideTick(spec: ScheduleSpec, lastTick: number, now: number, graceMs: number): TickDecision {
  const tick = latestTick(spec, now);
  if (tick === undefined || tick <= lastTick) return { kind: "none" };
  const onTime = now - tick <= graceMs;
  const earlier = countTicks(spec, lastTick, tick);
  if (onTime || spec.missedTicks === "run_once") return { kind: "fire", tick, missed: earlier };
  return { kind: "skip", tick, missed: earlier + 1 };
}

/** Ticks strictly between `from` and `to`, counted up to 1000. */
function countTicks(spec: ScheduleSpec, from: number, to: number): number {
  const it = parse(spec, from);
  let n = 0;
  while (n < 1000 && it.hasNext()) {
    if (it.next().getTime() >= to) break;
    n++;
  }
  return n;
}
