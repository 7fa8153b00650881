import { Command } from "@commander-js/extra-typings";
import { registerChatCommand } from "./commands/chat.js";
import { registerCompileCommands } from "./commands/compile.js";
import { registerEvalCommands } from "./commands/eval.js";
import { registerChat2WorkflowCommands } from "./commands/eval-chat2workflow.js";
import { registerEvalRunners } from "./commands/eval-runners.js";
import { registerGenerateCommands } from "./commands/generate.js";
import { registerMineCommands } from "./commands/mine.js";
import { registerResumeCommand } from "./commands/resume.js";
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
registerResumeCommand(program);
registerGenerateCommands(program);
registerChatCommand(program);
registerCompileCommands(program);
registerMineCommands(program);
registerEvalCommands(program);
const evalCommand = program.commands.find((c) => c.name() === "eval");
if (evalCommand) {
  registerEvalRunners(evalCommand as unknown as Parameters<typeof registerEvalRunners>[0]);
  registerChat2WorkflowCommands(evalCommand as unknown as Parameters<typeof registerChat2WorkflowCommands>[0]);
}
(await import("./commands/serve.js")).registerServeCommands(program);
(await import("./commands/tools.js")).registerToolsCommands(program);
(await import("./commands/kb.js")).registerKbCommands(program);
(await import("./commands/mcp.js")).registerMcpCommands(program);
(await import("./commands/apps.js")).registerAppCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = reportError(e);
}
