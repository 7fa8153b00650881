import { EXIT } from "../errors/statuses.js";
import { WeftError } from "../ir/errors.js";
import { StoreOpenError, StoreSpecError } from "../store/errors.js";

// The exit statuses live with the error catalogue (docs/errors.md lists each code's).
export { EXIT };

export class CliError extends WeftError {
  constructor(
    code: string,
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(code, message);
  }
}

/** Print an error the way a user should see it: code and message, never a stack trace. */
export function reportError(e: unknown): number {
  if (e instanceof CliError) {
    process.stderr.write(`error ${e.code}: ${e.message}\n`);
    return e.exitCode;
  }
  if (e instanceof WeftError) {
    process.stderr.write(`error ${e.code}: ${e.message}\n`);
    // A database that cannot be opened is a configuration problem (`--db`, config `db`), not a failed check.
    return e instanceof StoreSpecError || e instanceof StoreOpenError ? EXIT.usage : EXIT.invalid;
  }
  const msg = e instanceof Error ? e.message : String(e);
  process.stderr.write(`error: ${msg}\n`);
  if (process.env.WEFT_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  return EXIT.invalid;
}

export function printJson(v: unknown): void {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
}
