// The `weft` command. Which commands exist, and which module each comes from, is in ./registry.ts.
import { reportError } from "./output.js";
import { commandNamed, newProgram, placeholderCommands } from "./registry.js";

const program = newProgram();
const named = commandNamed(process.argv.slice(2));
if (named) await named.load(program);
else placeholderCommands(program);
try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = reportError(e);
}
