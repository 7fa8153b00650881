import { pino } from "pino";
import pretty from "pino-pretty";
import { WeftError } from "../ir/errors.js";

/**
 * What the server, the hub and workers log through: one structured line per event that matters. pino's
 * Logger satisfies it; the server and queue depend on this shape, not on pino.
 */
export interface EventLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

export const LOG_FORMATS = ["pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export class LogFormatError extends WeftError {}

/** `--log-format`: json, pretty, or (absent) pretty on a terminal and json otherwise, as log shippers expect. */
export function logFormatOf(raw: string | undefined, isTTY = !!process.stderr.isTTY): LogFormat {
  if (raw === undefined) return isTTY ? "pretty" : "json";
  if ((LOG_FORMATS as readonly string[]).includes(raw)) return raw as LogFormat;
  throw new LogFormatError("usage.log_format", `--log-format must be ${LOG_FORMATS.join(" or ")}, got "${raw}"`);
}

/**
 * The process's event log on stderr (stdout stays for what commands print). Synchronous writes: a line
 * logged just before an exit (a failed start, a stop) is never lost.
 */
export function createEventLog(format: LogFormat, o: { name: string; fd?: number; level?: string }): EventLog {
  const fd = o.fd ?? 2;
  const base = { level: o.level ?? process.env.WEFT_LOG_LEVEL ?? "info", base: { service: o.name, pid: process.pid } };
  if (format === "json") return pino(base, pino.destination({ fd, sync: true }));
  return pino(
    base,
    pretty({ destination: fd, sync: true, colorize: false, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,service" }),
  );
}

/** A log that drops everything: library code called without one (tests, embedding) stays quiet. */
export const silentLog: EventLog = { info() {}, warn() {}, error() {} };
