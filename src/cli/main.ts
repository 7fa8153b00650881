// The `weft` command. Which commands exist, and which module each comes from, is in ./registry.ts.
import { reportError } from "./output.js";
import { commandNamed, newProgram, placeholderCommands } from "./registry.js";
import { CommanderError, fromCommanderError } from "./usage-errors.js";

// A reader that stops early (`weft errors | head`) closes the pipe: the rest of the output is not wanted, which
// is no failure (as for any Unix command), and an unheard EPIPE would end the process with a stack trace.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code !== "EPIPE") throw e;
  process.exit(process.exitCode ?? 0);
});

// No top-level await: this module is also the entry of the CLI's CommonJS bundle (scripts/build.mjs).
async function main(): Promise<void> {
  const program = newProgram();
  const argv = process.argv.slice(2);
  try {
    const named = commandNamed(argv);
    // Loaded only for those commands: `weft --help` loads no more than the registry and commander.
    if (named?.oneShot) await (await import("./one-shot.js")).parseEachSchemaOnce();
    if (named) await named.load(program);
    else placeholderCommands(program);
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      const usage = fromCommanderError(e, argv, program);
      process.exitCode = typeof usage === "number" ? usage : reportError(usage);
    } else process.exitCode = reportError(e);
  }
}

void main();
