import { createInterface } from "node:readline/promises";
import type { Command } from "@commander-js/extra-typings";
import { ProposalProver } from "../../apptests/proof.js";
import { Editing } from "../../authoring/editing.js";
import type { GenerationResult } from "../../authoring/generate.js";
import { NOTHING_CHANGED } from "../../authoring/outcome.js";
import { generatorAuthor } from "../../authoring/turn/generator.js";
import { ChatTurn } from "../../authoring/turn/service.js";
import { formatDiff } from "../../ir/diff.js";
import { WeftError } from "../../ir/errors.js";
import { type AppMode, WorkflowSchema } from "../../ir/workflow.js";
import type { AppRecord, AppStore } from "../../store/apps.js";
import { withAppTests } from "../app-tests.js";
import { DB_HELP } from "../config.js";
import { readWorkflow } from "../io.js";
import { CliError } from "../output.js";
import {
  type AgentSetup,
  agentSetup,
  attemptsReport,
  proposalReport,
  rejectionReport,
  writeWorkflowYaml,
} from "./generate.js";

const HELP =
  "type an instruction; /diff shows the pending proposal (or the last change), /apply applies it to the draft, /reject drops it, /undo takes the last applied change back out, /quit ends";

interface ChatContext {
  apps: AppStore;
  editing: Editing;
  app: AppRecord;
  agent: AgentSetup;
  out: string;
  attempts: number;
  say(text: string): void;
}

async function openSession(apps: AppStore, opts: { session?: string; from?: string }): Promise<AppRecord> {
  if (opts.session) {
    const app = await apps.getApp(opts.session);
    if (!app) throw new CliError("session.not_found", `no chat session ${opts.session}`);
    if (opts.from)
      throw new CliError("usage.session_from", "--from starts a new session; it cannot be combined with --session");
    return app;
  }
  if (opts.from) {
    const { workflow } = await readWorkflow(opts.from);
    return (
      await apps.createApp(
        { name: workflow.name, mode: workflow.mode, description: workflow.description },
        workflow,
        "import",
      )
    ).app;
  }
  // A new chat starts from nothing: the first turn generates, later ones edit.
  const empty = WorkflowSchema.parse({ name: "chat", mode: "workflow" as AppMode, nodes: [], edges: [] });
  return (await apps.createApp({ name: "chat", mode: "workflow" }, empty, "create")).app;
}

/** One turn of the shared chat-turn service, with the generator as its author, reported as it goes. */
async function turn(ctx: ChatContext, text: string): Promise<void> {
  const { editing, app } = ctx;
  const chat = await ChatTurn.open(editing, app.id, text);
  for (const id of chat.superseded) ctx.say(`proposal ${id} was not applied; it is dropped`);
  let generated: GenerationResult | undefined;
  const author = generatorAuthor({
    llm: ctx.agent.llm,
    model: ctx.agent.model,
    mode: app.mode,
    name: app.name === "chat" ? undefined : app.name,
    maxAttempts: ctx.attempts,
    compact: ctx.agent.nodeModel ? { llmModel: ctx.agent.nodeModel } : {},
    onGenerated: (r) => {
      generated = r;
      ctx.say(attemptsReport(r));
    },
  });
  const res = await chat.run(author, { source: "cli" });
  const p = res.proposal;
  if (p) {
    const tests = p.tests ? `\n${p.tests.line}` : "";
    ctx.say(`proposal ${p.id} (not applied yet)\n${proposalReport(p)}${tests}\n/apply to apply it, /reject to drop it`);
  } else if (res.outcome.kind === "rejected" && generated) ctx.say(rejectionReport(generated));
  else ctx.say(`the answer changes nothing. ${NOTHING_CHANGED}`);
}

async function pending(ctx: ChatContext) {
  return (await ctx.apps.proposals(ctx.app.id, "pending")).at(-1);
}

async function command(ctx: ChatContext, cmd: string): Promise<void> {
  const { apps, editing, app } = ctx;
  const p = await pending(ctx);
  switch (cmd) {
    case "/diff": {
      if (p) return ctx.say(`proposal ${p.id} (not applied yet): ${p.summary}\n${formatDiff(p.diff)}`);
      const last = (await apps.proposals(app.id, "applied")).filter((x) => x.undoneAt === undefined).at(-1);
      return ctx.say(last ? `last change (${last.id}):\n${formatDiff(last.diff)}` : "no changes yet");
    }
    case "/apply": {
      if (!p) return ctx.say("there is no proposal to apply");
      const { draft } = await editing.apply(app.id, p.id);
      return ctx.say(
        `applied ${p.id} to the draft (revision ${draft.revision}): ${p.summary}\nwrote ${writeWorkflowYaml(ctx.out, draft.workflow)}`,
      );
    }
    case "/reject":
      if (!p) return ctx.say("there is no proposal to reject");
      await editing.reject(app.id, p.id);
      return ctx.say(`rejected ${p.id}. ${NOTHING_CHANGED}`);
    case "/undo": {
      const { draft, undone } = await editing.undo(app.id);
      return ctx.say(
        `undone: ${undone.id} taken out of the draft (revision ${draft.revision})\nwrote ${writeWorkflowYaml(ctx.out, draft.workflow)}`,
      );
    }
    case "/help":
      return ctx.say(HELP);
    default:
      return ctx.say(`unknown command ${cmd}; ${HELP}`);
  }
}

export function registerChatCommand(program: Command): void {
  program
    .command("chat")
    .description(
      "multi-turn chat that builds or edits a workflow: each change is a proposal to /apply or /reject, /undo after",
    )
    .option("--session <id>", "resume this session")
    .option("--from <file>", "start a new session that edits this workflow")
    .option("-o, --out <path>", "Dify YAML written after each /apply and /undo", "workflow.yml")
    .option("--db <spec>", `${DB_HELP}; sessions are apps there, as \`weft serve\` shows them`)
    .option("--model <name>", "model name for the agent")
    .option("--attempts <n>", "maximum attempts per turn", "5")
    .option("--config <path>", "weft.config.json")
    .action(async (opts) => {
      const agent = agentSetup(opts.config, opts.model);
      // The app's models, tools and files too: each proposal is run on the app's tests before it is shown.
      await withAppTests(opts, (_t, stores, _services, deps) =>
        session(stores.apps, new ProposalProver(deps), agent, opts),
      );
    });
}

async function session(
  apps: AppStore,
  prover: ProposalProver,
  agent: AgentSetup,
  opts: { session?: string; from?: string; out: string; attempts: string },
): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  // Taken at once: readline drops lines that arrive before anyone iterates (piped input comes while the
  // session opens), and a chat whose input ended unseen would wait forever.
  const lines = rl[Symbol.asyncIterator]();
  try {
    const app = await openSession(apps, opts);
    const editing = new Editing(apps, (appId, base, wf) => prover.prove(appId, base.workflow, wf, base.revision));
    const ctx: ChatContext = { apps, editing, app, agent, out: opts.out, attempts: Number(opts.attempts), say };
    say(`session ${app.id} — ${HELP}`);
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      const text = line.trim();
      if (!text) continue;
      if (text === "/quit") break;
      try {
        await (text.startsWith("/") ? command(ctx, text.split(/\s+/)[0]!) : turn(ctx, text));
      } catch (e) {
        // A refused command (stale proposal, nothing to undo) is reported; the session goes on.
        if (!(e instanceof WeftError)) throw e;
        say(`error ${e.code}: ${e.message}`);
      }
    }
  } finally {
    rl.close();
  }
}
