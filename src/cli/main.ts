import { Command } from "@commander-js/extra-typings";
import { registerEvalCommands } from "./commands/eval.js";
import { registerGenerateCommands } from "./commands/generate.js";
import { registerRunCommands } from "./commands/run.js";
import { registerStaticCommands } from "./commands/static.js";
import { reportError } from "./output.js";

const program = new Command()
  .name("weft")
  .description("Weft: natural language to verified, executable agentic workflows")
  .version("0.1.0")
  .showHelpAfterError();

registerStaticCommands(program);
registerRunCommands(program);
registerGenerateCommands(program);
registerEvalCommands(program);
(await import("./commands/serve.js")).registerServeCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = reportError(e);
}
