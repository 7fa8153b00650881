import type { Command } from "@commander-js/extra-typings";
import { ERROR_CATALOGUE, lookupError } from "../../errors/catalogue.js";
import { describeError, renderErrorsDoc } from "../../errors/doc.js";
import { RENAMED_CODES } from "../../errors/renamed.js";
import { CliError, EXIT, printJson } from "../output.js";

function unknownCode(code: string): CliError {
  const renamed = RENAMED_CODES[code];
  const why = renamed ? `${code} was renamed to ${renamed}` : `no error code ${code} (\`weft errors\` lists them all)`;
  return new CliError("errors.unknown_code", why, EXIT.invalid);
}

export function registerErrorsCommands(program: Command): void {
  program
    .command("errors")
    .description("the error catalogue: every code with its area, HTTP and exit statuses, message and fix")
    .argument("[code]", "one code to describe")
    .option("--json", "print entries as JSON")
    .option("--markdown", "print the whole catalogue as docs/errors.md")
    .action((code, opts) => {
      if (opts.markdown) return void process.stdout.write(renderErrorsDoc());
      if (code) {
        const entry = lookupError(code);
        if (!entry) throw unknownCode(code);
        return opts.json ? printJson(entry) : void process.stdout.write(`${describeError(entry)}\n`);
      }
      const all = [...ERROR_CATALOGUE.values()];
      if (opts.json) return printJson(all);
      const width = Math.max(...all.map((e) => e.code.length));
      for (const e of all) process.stdout.write(`${e.code.padEnd(width)}  ${e.kind.padEnd(6)}  ${e.message}\n`);
    });
}
