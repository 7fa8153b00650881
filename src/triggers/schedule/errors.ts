import { WeftError } from "../../ir/errors.js";

/**
 * A schedule trigger whose configuration names no time Weft can compute: the node id, the field and the reason.
 * Codes: `schedule.bad_mode`, `schedule.bad_frequency`, `schedule.missing_field`, `schedule.bad_time`,
 * `schedule.bad_cron`, `schedule.bad_timezone`, `schedule.bad_policy`.
 */
export class ScheduleConfigError extends WeftError {
  constructor(code: string, message: string, nodeId: string | undefined, field: string) {
    super(code, nodeId ? `trigger-schedule node "${nodeId}": ${message}` : message, {
      ...(nodeId ? { nodeId } : {}),
      field,
    });
  }
}
