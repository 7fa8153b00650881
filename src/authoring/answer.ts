import { analyse } from "../analysis/index.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import { type AppMode, type Workflow, WorkflowSchema } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
import { isPlainObject } from "../util/json.js";
import { type EditView, type ReadOptions, readEdit, viewOf } from "./edit/read.js";
import { makeProposal, type Proposal } from "./proposal.js";
import { type ParsedAnswer, parseAnswer } from "./repair/index.js";

export interface AnswerContext {
  /** The workflow the model was shown; its answer is read as an edit of it. */
  current?: Workflow;
  /** The projection of `current` the model saw (computed from `current` when absent). */
  shown?: EditView;
  /** For a new workflow: its name and mode (the mode is guessed from the answer when absent). */
  name?: string;
  mode?: AppMode;
  /** Models for nodes the answer adds (the configured model). */
  compact?: ReadOptions;
  /** The analyser's findings on `current`, when the caller has them already. */
  baseDiagnostics?: readonly Diagnostic[];
}

export interface AnswerReading {
  parsed: ParsedAnswer;
  /** The proposed workflow and its diff against `current`, when the answer could be read at all. */
  proposal?: Proposal;
  workflow?: Workflow;
  /** Errors to feed back to the model: parse, reading, then new analyser errors (only of a clean reading). */
  problems: Diagnostic[];
  /** IR id → the compact id the model knows the node by: problems name nodes by those. */
  toCompact: Map<string, string>;
}

const errors = (ds: readonly Diagnostic[]) => ds.filter((d) => d.severity === "error");

function startingView(ctx: AnswerContext, answer: unknown): EditView {
  if (ctx.current) return ctx.shown ?? viewOf(ctx.current);
  const types =
    isPlainObject(answer) && Array.isArray(answer.nodes_info)
      ? answer.nodes_info.map((n) => (isPlainObject(n) ? n.type : undefined))
      : [];
  const mode = ctx.mode ?? (types.includes("answer") ? "advanced-chat" : "workflow");
  return viewOf(WorkflowSchema.parse({ name: ctx.name ?? "generated", mode, nodes: [], edges: [] }));
}

/**
 * Everything the generation loop does with one model answer before any test run: read (with the
 * auto-repairs), read as an edit of what the model was shown, diff, analyse. Model output is hostile
 * input: this must end in typed problems, never throw — the fuzz test and bench/fuzz.ts hold it to that.
 */
export function readAnswer(text: string, ctx: AnswerContext = {}): AnswerReading {
  const parsed = parseAnswer(text, { repair: true });
  const problems = errors(parsed.diagnostics);
  if (problems.length > 0 || parsed.json === undefined) return { parsed, problems, toCompact: new Map() };
  const reading = readEdit(startingView(ctx, parsed.json), parsed.json, ctx.compact);
  const toCompact = new Map([...reading.ids].map(([cid, ir]) => [ir, cid]));
  problems.push(...errors(reading.diagnostics));
  if (!reading.workflow) return { parsed, problems, toCompact };
  const baseDiagnostics = ctx.baseDiagnostics ?? (ctx.current ? analyse(ctx.current, nodeCatalogue).diagnostics : []);
  const proposal = makeProposal(ctx.current, reading.workflow, baseDiagnostics);
  if (problems.length === 0) problems.push(...proposal.newErrors);
  return { parsed, proposal, workflow: proposal.workflow, problems, toCompact };
}
