import { Command } from "@commander-js/extra-typings";

export type Program = Command;
type Load = (program: Program) => Promise<void>;

const staticCommands: Load = async (p) => (await import("./commands/static.js")).registerStaticCommands(p);
const runCommands: Load = async (p) => (await import("./commands/run.js")).registerRunCommands(p);
const generateCommands: Load = async (p) => (await import("./commands/generate.js")).registerGenerateCommands(p);
const resumeCommand: Load = async (p) => (await import("./commands/resume.js")).registerResumeCommand(p);
const toolsCommands: Load = async (p) => (await import("./commands/tools.js")).registerToolsCommands(p);
const kbCommands: Load = async (p) => (await import("./commands/kb.js")).registerKbCommands(p);
const mcpCommands: Load = async (p) => (await import("./commands/mcp.js")).registerMcpCommands(p);
const appCommands: Load = async (p) => (await import("./commands/apps.js")).registerAppCommands(p);
const testsCommands: Load = async (p) => (await import("./commands/tests.js")).registerTestsCommands(p);
const envCommands: Load = async (p) => (await import("./commands/env.js")).registerEnvCommands(p);
const chatCommand: Load = async (p) => (await import("./commands/chat.js")).registerChatCommand(p);
const compileCommands: Load = async (p) => (await import("./commands/compile.js")).registerCompileCommands(p);
const mineCommands: Load = async (p) => (await import("./commands/mine.js")).registerMineCommands(p);
const scheduleCommands: Load = async (p) => (await import("./commands/schedules.js")).registerScheduleCommands(p);
const triggerCommands: Load = async (p) => (await import("./commands/triggers.js")).registerTriggerCommands(p);
const userCommands: Load = async (p) => (await import("./commands/users.js")).registerUserCommands(p);
const auditCommands: Load = async (p) => (await import("./commands/audit.js")).registerAuditCommands(p);
const errorsCommands: Load = async (p) => (await import("./commands/errors.js")).registerErrorsCommands(p);
const serveCommands: Load = async (p) => (await import("./commands/serve.js")).registerServeCommands(p);
const evalCommands: Load = async (p) => {
  const [evalGroup, runners, c2w] = await Promise.all([
    import("./commands/eval.js"),
    import("./commands/eval-runners.js"),
    import("./commands/eval-chat2workflow.js"),
  ]);
  evalGroup.registerEvalCommands(p);
  const group = p.commands.find((c) => c.name() === "eval");
  if (!group) throw new Error("commands/eval.ts registered no eval command");
  runners.registerEvalRunners(group as unknown as Parameters<typeof runners.registerEvalRunners>[0]);
  c2w.registerChat2WorkflowCommands(group as unknown as Parameters<typeof c2w.registerChat2WorkflowCommands>[0]);
};

/**
 * Every top-level command: its name, the description it registers, and the loader of the module that
 * registers it. Only the module of the command being run is loaded (with what it needs: the server, the
 * AI SDK, SQLite…); `weft --help` loads none of them.
 *
 * Adding a command: write `src/cli/commands/<group>.ts` exporting `register<Group>Commands(program)` as the
 * others do, give it a loader above, and add a row here with the command's name and its exact
 * description (test/cli/registry.test.ts checks rows and registered commands agree). Keep heavy imports out
 * of this file and main.ts: what they import statically is loaded by every command, `--help` included.
 */
export const COMMANDS: ReadonlyArray<{
  name: string;
  description: string;
  load: Load;
  /** Parses each schema about once, so zod's JIT costs more than it saves (./one-shot.ts). */
  oneShot?: true;
}> = [
  {
    name: "validate",
    load: staticCommands,
    description: "check a workflow (Dify YAML or Weft JSON); exit 0 when valid, 1 when not",
    oneShot: true,
  },
  { name: "import", load: staticCommands, description: "import a Dify DSL YAML file into Weft JSON" },
  { name: "export", load: staticCommands, description: "export a workflow to Dify YAML, Mermaid or Coze canvas JSON" },
  { name: "show", load: staticCommands, description: "summarise a workflow: nodes, edges, inputs, outputs, burden" },
  { name: "run", load: runCommands, description: "run a workflow on Weft's engine", oneShot: true },
  {
    name: "worker",
    load: runCommands,
    description: "process queued runs from Redis (any number of workers may share Redis and the run store)",
  },
  { name: "runs", load: runCommands, description: "list recorded runs" },
  {
    name: "trace",
    load: runCommands,
    description: "print the trace of a run: every node attempt's inputs, outputs, port, error, timing",
  },
  {
    name: "resume",
    load: resumeCommand,
    description:
      "continue an interrupted or paused run without re-running committed nodes; --input/--action answer its waiting form",
  },
  {
    name: "generate",
    load: generateCommands,
    description: "generate a workflow from an instruction (or, with --from, edit one), written as Dify YAML",
  },
  {
    name: "chat",
    load: chatCommand,
    description:
      "multi-turn chat that builds or edits a workflow: each change is a proposal to /apply or /reject, /undo after",
  },
  {
    name: "compile",
    load: compileCommands,
    description: "compile a natural-language procedure (SOP) into a verified artifact-driven workflow (Weft JSON)",
  },
  {
    name: "mine",
    load: mineCommands,
    description: "mine a tool-calling workflow from task records (Weft records or ToolBench answer logs)",
  },
  {
    name: "optimize",
    load: mineCommands,
    description: "improve a workflow by MCTS over graph edits, scored by (TC + ES) / 2 on task records",
  },
  { name: "eval", load: evalCommands, description: "benchmark evaluations" },
  { name: "serve", load: serveCommands, description: "serve the HTTP API and the web UI" },
  { name: "keys", load: serveCommands, description: "API keys for `weft serve`" },
  { name: "users", load: userCommands, description: "accounts that sign in to the studio and /api" },
  {
    name: "audit",
    load: auditCommands,
    description: "the audit log: who changed what, when, with which key or session",
  },
  {
    name: "schedules",
    load: scheduleCommands,
    description: "schedule triggers of published apps: next fire time, enabled, last tick",
  },
  {
    name: "triggers",
    load: triggerCommands,
    description: "triggers of published apps (webhooks, schedules): URL or next fire time, enable, disable",
  },
  {
    name: "tools",
    load: toolsCommands,
    description: "tools served by weft.config.json (MCP, OpenAPI, workflow files) and the built-ins",
  },
  {
    name: "kb",
    load: kbCommands,
    description: "knowledge bases in the run store's database (what knowledge-retrieval nodes search)",
  },
  { name: "mcp", load: mcpCommands, description: "apps as MCP servers" },
  {
    name: "env",
    load: envCommands,
    description: "an app's environment variables and secrets (secrets encrypted at rest, never shown)",
  },
  {
    name: "tests",
    load: testsCommands,
    description: "an app's test cases: add (from runs), list, run (pass^k), export/import",
  },
  {
    name: "apps",
    load: appCommands,
    description: "apps that `weft serve` runs (the Dify service API selects one by its key)",
  },
  {
    name: "errors",
    load: errorsCommands,
    description: "the error catalogue: every code with its area, HTTP and exit statuses, message and fix",
  },
];

export function newProgram(): Program {
  return (
    new Command()
      .name("weft")
      .description("Weft: natural language to verified, executable agentic workflows")
      .version("0.1.0")
      // Parser errors end as one `error cli.…` line with exit 2 (main.ts), like Weft's own usage errors; the
      // settings are inherited by every command registered on this program.
      .exitOverride()
      .configureOutput({ outputError: () => {} })
  );
}

/** The command the arguments name (`weft help X` names X); undefined for `--help`, `--version`, nothing. */
export function commandNamed(argv: readonly string[]) {
  const word = argv[0] === "help" ? argv[1] : argv[0];
  return COMMANDS.find((c) => c.name === word);
}

/**
 * Without a command to run (`weft`, `weft --help`, a misspelt name), placeholders carry the names and
 * descriptions for the help and for commander's "unknown command (Did you mean …?)".
 */
export function placeholderCommands(program: Program): void {
  for (const c of COMMANDS) program.command(c.name).description(c.description);
}

/** Registers every command for real, loading every command module: for tests, never at start-up. */
export async function loadAllCommands(program: Program): Promise<void> {
  for (const load of new Set(COMMANDS.map((c) => c.load))) await load(program);
}
