import { fromWall, isValidTimeZone, monthName, strftime, weekdayName } from "./clock.js";
import { type BuiltinTool, paramError, requiredNumber, str, type ToolContext } from "./types.js";

const DEFAULT_FORMAT = "%Y-%m-%d %H:%M:%S %Z";

function zone(ctx: ToolContext, name = "timezone"): string {
  const tz = str(ctx, name).trim() || "UTC";
  if (!isValidTimeZone(tz)) throw paramError(ctx, name, `is not a known IANA time zone: "${tz}"`);
  return tz;
}

function parseLocal(
  ctx: ToolContext,
  name: string,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const raw = str(ctx, name).trim();
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(raw);
  if (!m) throw paramError(ctx, name, `must look like "YYYY-MM-DD HH:MM:SS", got "${raw}"`);
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  };
}

/** Dify's built-in `time` provider. The clock is ExecServices.now, so pinned runs repeat exactly. */
export const timeTools: BuiltinTool[] = [
  {
    provider: "time",
    name: "current_time",
    label: "Current Time",
    description: "The current date and time in a time zone, formatted with strftime codes.",
    parameters: [
      {
        name: "timezone",
        type: "string",
        required: false,
        form: "form",
        description: "IANA time zone, default UTC",
        default: "UTC",
      },
      {
        name: "format",
        type: "string",
        required: false,
        form: "form",
        description: "strftime format",
        default: DEFAULT_FORMAT,
      },
    ],
    async run(ctx) {
      const format = str(ctx, "format").trim() || DEFAULT_FORMAT;
      return { text: strftime(ctx.now(), format, zone(ctx)) };
    },
  },
  {
    provider: "time",
    name: "weekday",
    label: "Weekday Calculator",
    description: "The weekday of a calendar date.",
    parameters: [
      { name: "year", type: "number", required: true, form: "llm", description: "year" },
      { name: "month", type: "number", required: true, form: "llm", description: "month 1-12" },
      { name: "day", type: "number", required: true, form: "llm", description: "day of month" },
    ],
    async run(ctx) {
      const year = requiredNumber(ctx, "year");
      const month = requiredNumber(ctx, "month");
      const day = requiredNumber(ctx, "day");
      const d = new Date(Date.UTC(year, month - 1, day));
      if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
        throw paramError(ctx, "day", `${year}-${month}-${day} is not a calendar date`);
      }
      const wd = (d.getUTCDay() + 6) % 7;
      return { text: `${monthName(month)} ${day}, ${year} is ${weekdayName(wd)}.` };
    },
  },
  {
    provider: "time",
    name: "timestamp_to_localtime",
    label: "Timestamp to Local Time",
    description: "A Unix timestamp (seconds) as local time in a time zone.",
    parameters: [
      { name: "timestamp", type: "number", required: true, form: "llm", description: "Unix seconds" },
      { name: "timezone", type: "string", required: false, form: "llm", description: "IANA time zone" },
    ],
    async run(ctx) {
      const ts = requiredNumber(ctx, "timestamp");
      return { text: strftime(new Date(ts * 1000), "%Y-%m-%d %H:%M:%S %Z", zone(ctx)) };
    },
  },
  {
    provider: "time",
    name: "localtime_to_timestamp",
    label: "Local Time to Timestamp",
    description: "Local time in a time zone as a Unix timestamp (seconds).",
    parameters: [
      { name: "localtime", type: "string", required: true, form: "llm", description: "YYYY-MM-DD HH:MM:SS" },
      { name: "timezone", type: "string", required: false, form: "llm", description: "IANA time zone" },
    ],
    async run(ctx) {
      const at = fromWall(parseLocal(ctx, "localtime"), zone(ctx));
      return { text: String(Math.floor(at.getTime() / 1000)) };
    },
  },
  {
    provider: "time",
    name: "timezone_conversion",
    label: "Time Zone Conversion",
    description: "Convert a local time from one time zone to another.",
    parameters: [
      { name: "current_time", type: "string", required: true, form: "llm", description: "YYYY-MM-DD HH:MM:SS" },
      { name: "current_timezone", type: "string", required: true, form: "llm", description: "source zone" },
      { name: "target_timezone", type: "string", required: true, form: "llm", description: "target zone" },
    ],
    async run(ctx) {
      const at = fromWall(parseLocal(ctx, "current_time"), zone(ctx, "current_timezone"));
      const target = zone(ctx, "target_timezone");
      return { text: strftime(at, "%Y-%m-%d %H:%M:%S", target) };
    },
  },
];
