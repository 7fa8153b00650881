import { describe, expect, it } from "vitest";
import { ScheduleConfigError } from "../../src/triggers/schedule/errors.js";
import { parseClockTime, visualToCron } from "../../src/triggers/schedule/spec.js";
import { decideTick, latestTick, nextTicks, scheduleSpecOf } from "../../src/triggers/schedule/ticks.js";

const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());
const at = (s: string) => Date.parse(s);

describe("visual configs become Dify's cron expressions", () => {
  it("hourly, daily, weekly, monthly (days ascending, then L for the last day)", () => {
    expect(visualToCron("hourly", { on_minute: 15 })).toBe("15 * * * *");
    expect(visualToCron("daily", { time: "2:30 PM" })).toBe("30 14 * * *");
    expect(visualToCron("daily", { time: "12:05 AM" })).toBe("5 0 * * *");
    expect(visualToCron("weekly", { time: "9:00 AM", weekdays: ["fri", "mon", "sun"] })).toBe("0 9 * * 0,1,5");
    expect(visualToCron("monthly", { time: "12:00 PM", monthly_days: ["last", 15, 1, 15] })).toBe("0 12 1,15,L * *");
    expect(parseClockTime("12:00 PM")).toEqual({ hour: 12, minute: 0 });
  });

  it("a missing or bad field is a typed error naming the node and field", () => {
    const cases: Array<[unknown, string, string]> = [
      [
        { mode: "visual", frequency: "weekly", visual_config: { time: "9:00 AM" } },
        "schedule.missing_field",
        "visual_config.weekdays",
      ],
      [
        { mode: "visual", frequency: "daily", visual_config: { time: "25:00" } },
        "schedule.bad_time",
        "visual_config.time",
      ],
      [{ mode: "visual", frequency: "yearly", visual_config: {} }, "schedule.bad_frequency", "frequency"],
      [{ mode: "cron", cron_expression: "*/5 * * * * *" }, "schedule.bad_cron", "cron_expression"],
      [{ mode: "cron", cron_expression: "61 * * * *" }, "schedule.bad_cron", "cron_expression"],
      [{ mode: "cron" }, "schedule.missing_field", "cron_expression"],
      [{ mode: "cron", cron_expression: "* * * * *", timezone: "Mars/Olympus" }, "schedule.bad_timezone", "timezone"],
      [{ mode: "sometimes" }, "schedule.bad_mode", "mode"],
      [{ mode: "cron", cron_expression: "* * * * *", missed_ticks: "all" }, "schedule.bad_policy", "missed_ticks"],
    ];
    for (const [config, code, field] of cases) {
      let err: unknown;
      try {
        scheduleSpecOf(config, "sched");
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(config)).toBeInstanceOf(ScheduleConfigError);
      expect((err as ScheduleConfigError).code).toBe(code);
      expect((err as ScheduleConfigError).details).toEqual({ nodeId: "sched", field });
      expect((err as Error).message).toContain('trigger-schedule node "sched"');
    }
  });

  it("defaults follow Dify: visual mode, UTC, and missed ticks run once", () => {
    expect(scheduleSpecOf({ frequency: "hourly", visual_config: { on_minute: 0 } })).toEqual({
      cron: "0 * * * *",
      timezone: "UTC",
      missedTicks: "run_once",
    });
    expect(scheduleSpecOf({ mode: "cron", cron_expression: "@daily", missed_ticks: "skip" }).missedTicks).toBe("skip");
  });
});

describe("next fire times (fake clock: every time is given)", () => {
  it("time zones: a daily 9:00 AM in New York is 14:00 UTC in winter and 13:00 UTC in summer", () => {
    const spec = scheduleSpecOf({
      frequency: "daily",
      visual_config: { time: "9:00 AM" },
      timezone: "America/New_York",
    });
    expect(iso(nextTicks(spec, at("2026-01-10T00:00:00Z"), 2))).toEqual([
      "2026-01-10T14:00:00.000Z",
      "2026-01-11T14:00:00.000Z",
    ]);
    expect(iso(nextTicks(spec, at("2026-07-10T00:00:00Z"), 1))).toEqual(["2026-07-10T13:00:00.000Z"]);
  });

  it("DST spring forward (Europe/Berlin 2026-03-29): the day before and after keep 09:30 local", () => {
    const spec = scheduleSpecOf({ mode: "cron", cron_expression: "30 9 * * *", timezone: "Europe/Berlin" });
    expect(iso(nextTicks(spec, at("2026-03-28T00:00:00Z"), 3))).toEqual([
      "2026-03-28T08:30:00.000Z",
      "2026-03-29T07:30:00.000Z",
      "2026-03-30T07:30:00.000Z",
    ]);
  });

  it("DST: a local time that does not exist (02:30 on the spring-forward night) and one that happens twice", () => {
    const spring = scheduleSpecOf({ mode: "cron", cron_expression: "30 2 * * *", timezone: "Europe/Berlin" });
    const ticks = iso(nextTicks(spring, at("2026-03-28T12:00:00Z"), 2));
    // Whatever the library does with the missing 02:30, it never fires twice on one day and goes on after.
    expect(ticks[1]).toBe("2026-03-30T00:30:00.000Z");
    expect(ticks[0]! >= "2026-03-29T00:00:00.000Z" && ticks[0]! < "2026-03-30T00:00:00.000Z").toBe(true);
    // Autumn: 02:30 local happens twice on 2026-10-25; one run that day.
    const autumn = scheduleSpecOf({ mode: "cron", cron_expression: "30 2 * * *", timezone: "Europe/Berlin" });
    const day = nextTicks(autumn, at("2026-10-24T12:00:00Z"), 3).filter(
      (t) => t >= at("2026-10-24T22:00:00Z") && t < at("2026-10-25T23:00:00Z"),
    );
    expect(day).toHaveLength(1);
  });

  it("hourly across the DST change stays hourly in UTC", () => {
    const spec = scheduleSpecOf({ frequency: "hourly", visual_config: { on_minute: 0 }, timezone: "Europe/Berlin" });
    const t = nextTicks(spec, at("2026-03-29T00:30:00Z"), 3);
    expect(iso(t)).toEqual(["2026-03-29T01:00:00.000Z", "2026-03-29T02:00:00.000Z", "2026-03-29T03:00:00.000Z"]);
  });

  it("weekly and monthly including the last day of February", () => {
    const weekly = scheduleSpecOf({
      frequency: "weekly",
      visual_config: { time: "8:00 AM", weekdays: ["mon", "fri"] },
    });
    // 2026-01-01 is a Thursday.
    expect(iso(nextTicks(weekly, at("2026-01-01T00:00:00Z"), 3))).toEqual([
      "2026-01-02T08:00:00.000Z",
      "2026-01-05T08:00:00.000Z",
      "2026-01-09T08:00:00.000Z",
    ]);
    const monthly = scheduleSpecOf({
      frequency: "monthly",
      visual_config: { time: "11:30 PM", monthly_days: ["last"] },
    });
    expect(iso(nextTicks(monthly, at("2026-02-01T00:00:00Z"), 2))).toEqual([
      "2026-02-28T23:30:00.000Z",
      "2026-03-31T23:30:00.000Z",
    ]);
    expect(latestTick(monthly, at("2026-03-31T23:30:00Z"))).toBe(at("2026-03-31T23:30:00Z"));
  });
});

describe("missed ticks: the policy decides (fake clock)", () => {
  const every = (policy: string) =>
    scheduleSpecOf({ mode: "cron", cron_expression: "* * * * *", missed_ticks: policy });
  const t0 = at("2026-05-01T10:00:00Z");

  it("nothing due, then the tick on time fires under either policy", () => {
    for (const p of ["run_once", "skip"]) {
      expect(decideTick(every(p), t0, t0 + 30_000, 15_000)).toEqual({ kind: "none" });
      expect(decideTick(every(p), t0, t0 + 61_000, 15_000)).toEqual({ kind: "fire", tick: t0 + 60_000, missed: 0 });
    }
  });

  it("down for five ticks: run_once fires one run for the latest, skip fires none", () => {
    const now = t0 + 5 * 60_000 + 40_000;
    expect(decideTick(every("run_once"), t0, now, 15_000)).toEqual({ kind: "fire", tick: t0 + 300_000, missed: 4 });
    expect(decideTick(every("skip"), t0, now, 15_000)).toEqual({ kind: "skip", tick: t0 + 300_000, missed: 5 });
  });

  it("back just after a tick: earlier ticks are missed, the on-time one still fires under skip", () => {
    const now = t0 + 3 * 60_000 + 2_000;
    expect(decideTick(every("skip"), t0, now, 15_000)).toEqual({ kind: "fire", tick: t0 + 180_000, missed: 2 });
  });
});
