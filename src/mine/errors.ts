import { WeftError } from "../ir/errors.js";

/** Bad records, logs or miner options; `code` is one of `MineCodes`, `details` names the file/field. */
export class MineError extends WeftError {}

export const MineCodes = {
  recordsInvalid: "mine.records_invalid",
  recordsUnreadable: "mine.records_unreadable",
  logEmpty: "mine.log_empty",
  invalidOption: "mine.invalid_option",
  toolsInvalid: "mine.tools_invalid",
} as const;
