/** Time-zone aware calendar fields and a Python-compatible `strftime`, on top of Intl. */

export interface Zoned {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 = Monday, as Python's weekday()
  offsetMinutes: number;
  abbreviation: string;
  millisecond: number;
}

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Intl's short names for these zones are "GMT+8" and the like; Python (pytz) prints the usual abbreviation. */
const ABBREVIATIONS: Record<string, string> = {
  "Asia/Shanghai": "CST",
  "Asia/Chongqing": "CST",
  "Asia/Harbin": "CST",
  "Asia/Taipei": "CST",
  "Asia/Hong_Kong": "HKT",
  "Asia/Tokyo": "JST",
  "Asia/Seoul": "KST",
  "Asia/Kolkata": "IST",
  "Asia/Calcutta": "IST",
};

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function zoned(date: Date, timeZone: string): Zoned {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
    weekday: "long",
    timeZoneName: "short",
  }).formatToParts(date);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  const year = Number(get("year"));
  const month = Number(get("month"));
  const day = Number(get("day"));
  const hour = Number(get("hour")) % 24;
  const minute = Number(get("minute"));
  const second = Number(get("second"));
  const wallAsUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const offsetMinutes = Math.round((wallAsUtc - Math.floor(date.getTime() / 1000) * 1000) / 60000);
  const short = get("timeZoneName");
  const abbreviation =
    timeZone === "UTC" || timeZone === "Etc/UTC"
      ? "UTC"
      : (ABBREVIATIONS[timeZone] ?? (/^GMT[+-]/.test(short) ? short.replace("GMT", "UTC") : short));
  return {
    year,
    month,
    day,
    hour,
    minute,
    second,
    weekday: WEEKDAYS.indexOf(get("weekday")),
    offsetMinutes,
    abbreviation,
    millisecond: date.getUTCMilliseconds(),
  };
}

/** The instant at which the wall clock in `timeZone` shows the given fields. */
export function fromWall(
  fields: { year: number; month: number; day: number; hour: number; minute: number; second: number },
  timeZone: string,
): Date {
  const wall = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
  let guess = wall;
  for (let i = 0; i < 3; i++) guess = wall - zoned(new Date(guess), timeZone).offsetMinutes * 60000;
  return new Date(guess);
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

export function strftime(date: Date, format: string, timeZone: string): string {
  const z = zoned(date, timeZone);
  const off = (sep: string) => {
    const sign = z.offsetMinutes < 0 ? "-" : "+";
    const a = Math.abs(z.offsetMinutes);
    return `${sign}${pad(Math.floor(a / 60))}${sep}${pad(a % 60)}`;
  };
  const dayOfYear = Math.round((Date.UTC(z.year, z.month - 1, z.day) - Date.UTC(z.year, 0, 1)) / 86400000) + 1;
  const h12 = z.hour % 12 === 0 ? 12 : z.hour % 12;
  const weekdayName = WEEKDAYS[z.weekday] ?? "";
  const monthName = MONTHS[z.month - 1] ?? "";
  const field = (k: string): string | undefined => {
    switch (k) {
      case "Y":
        return String(z.year);
      case "y":
        return pad(z.year % 100);
      case "m":
        return pad(z.month);
      case "d":
        return pad(z.day);
      case "H":
        return pad(z.hour);
      case "I":
        return pad(h12);
      case "M":
        return pad(z.minute);
      case "S":
        return pad(z.second);
      case "f":
        return pad(z.millisecond * 1000, 6);
      case "p":
        return z.hour < 12 ? "AM" : "PM";
      case "A":
        return weekdayName;
      case "a":
        return weekdayName.slice(0, 3);
      case "B":
        return monthName;
      case "b":
        return monthName.slice(0, 3);
      case "j":
        return pad(dayOfYear, 3);
      case "w":
        return String((z.weekday + 1) % 7);
      case "u":
        return String(z.weekday + 1);
      case "Z":
        return z.abbreviation;
      case "z":
        return off("");
      case "F":
        return `${z.year}-${pad(z.month)}-${pad(z.day)}`;
      case "T":
        return `${pad(z.hour)}:${pad(z.minute)}:${pad(z.second)}`;
      case "%":
        return "%";
      default:
        return undefined;
    }
  };
  return format.replace(/%([a-zA-Z%])/g, (m, k: string) => field(k) ?? m);
}

export function weekdayName(index: number): string {
  return WEEKDAYS[index] ?? "";
}

export function monthName(month: number): string {
  return MONTHS[month - 1] ?? "";
}
