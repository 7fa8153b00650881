import { CommanderError } from "@commander-js/extra-typings";
import { CliError, EXIT } from "./output.js";

/** The part of a commander program the usage hint walks (any generic instantiation of Command has it). */
interface CommandTree {
  readonly commands: readonly CommandTree[];
  name(): string;
  aliases(): string[];
}

/** Commander's error codes → Weft's (`area.reason`, as every other CLI error is spelt). */
const CODES: Record<string, string> = {
  "commander.unknownOption": "cli.unknown_option",
  "commander.unknownCommand": "cli.unknown_command",
  "commander.missingArgument": "cli.missing_argument",
  "commander.optionMissingArgument": "cli.missing_option_value",
  "commander.missingMandatoryOptionValue": "cli.missing_option",
  "commander.excessArguments": "cli.too_many_arguments",
  "commander.invalidArgument": "cli.invalid_argument",
  "commander.conflictingOption": "cli.conflicting_options",
};

/**
 * What a commander exit means for `weft`: help and version are done (their exit code), anything else is a
 * usage error on one line — the parser's message, its "Did you mean …?" and where the usage is.
 */
export function fromCommanderError(
  e: CommanderError,
  argv: readonly string[],
  program: CommandTree,
): CliError | number {
  if (!CODES[e.code]) return e.exitCode;
  const message = e.message
    .replace(/^error:\s*/, "")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" ");
  const help = ["weft", ...commandPath(program, argv), "--help"].join(" ");
  return new CliError(CODES[e.code]!, `${message}; see \`${help}\``, EXIT.usage);
}

/** The (sub)command names the arguments lead to, e.g. ["apps", "publish"]; positionals and options skipped. */
function commandPath(program: CommandTree, argv: readonly string[]): string[] {
  const path: string[] = [];
  let cmd = program;
  for (const word of argv) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) continue;
    path.push(sub.name());
    cmd = sub;
  }
  return path;
}

export { CommanderError };
