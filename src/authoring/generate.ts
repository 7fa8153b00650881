import { analyse } from "../analysis/index.js";
import { variableSummary } from "../dsl/compact/summary.js";
import { runWorkflow } from "../engine/run.js";
import { type Diagnostic, formatDiagnostic } from "../ir/diagnostics.js";
import type { ChatMessage, ExecServices, LlmService, ModelRef } from "../ir/services.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
import { readAnswer } from "./answer.js";
import { type ReadOptions, viewOf } from "./edit/read.js";
import { feedbackPrompt, systemPrompt, turnPrompt } from "./prompts.js";
import type { Proposal } from "./proposal.js";
import type { AnswerSections, RepairRecord } from "./repair/index.js";

export interface GenerateOptions {
  llm: LlmService;
  model: ModelRef;
  instruction: string;
  /** Earlier turns of the chat (user instructions and the model's final answers, with their outcomes). */
  history?: ChatMessage[];
  /** The workflow this turn edits; the model is shown it as compact JSON and its answer is read as an edit. */
  current?: Workflow;
  mode?: AppMode;
  name?: string;
  maxAttempts?: number;
  /** Example inputs: each attempt that validates is also test-run on these. */
  testInputs?: Array<Record<string, unknown>>;
  services?: Partial<ExecServices>;
  /** Models for nodes the answer adds (the configured model). */
  compact?: ReadOptions;
  onAttempt?: (a: GenerationAttempt) => void;
  signal?: AbortSignal;
}

export interface GenerationAttempt {
  attempt: number;
  answer: string;
  repairs: RepairRecord[];
  /** Errors found at this attempt (parse, reading, new analyser errors, test runs); empty when it passed. */
  problems: Diagnostic[];
  passed: boolean;
}

export interface GenerationResult {
  /** The proposed workflow of the attempt that passed (or of the last one that could be read). */
  workflow?: Workflow;
  passed: boolean;
  /** What the workflow changes against `current`, with the analyser's findings. */
  proposal?: Proposal;
  sections?: AnswerSections;
  attempts: GenerationAttempt[];
  /** The conversation to carry into the next turn: the instruction and the final answer. */
  turn: ChatMessage[];
}

/** The model sees compact ids: problems name nodes by those. */
export function formatForModel(d: Diagnostic, toCompact: ReadonlyMap<string, string>): string {
  const nodeId = d.nodeId !== undefined ? (toCompact.get(d.nodeId) ?? d.nodeId) : undefined;
  return formatDiagnostic({ ...d, ...(nodeId !== undefined ? { nodeId } : {}) });
}

async function testRuns(o: GenerateOptions, wf: Workflow): Promise<Diagnostic[]> {
  const problems: Diagnostic[] = [];
  for (const [i, inputs] of (o.testInputs ?? []).entries()) {
    const run = await runWorkflow(wf, { inputs, services: o.services, signal: o.signal });
    if (run.status === "failed") {
      problems.push({
        code: `run.${run.error?.code ?? "failed"}`,
        severity: "error",
        nodeId: run.error?.nodeId,
        message: `test run ${i + 1} failed: ${run.error?.message}`,
      });
    } else if (
      Object.keys(run.outputs).length === 0 ||
      Object.values(run.outputs).every((v) => v === null || v === "")
    ) {
      problems.push({ code: "run.empty_output", severity: "error", message: `test run ${i + 1} produced no output` });
    }
  }
  return problems;
}

/**
 * Generate (or, with `current`, edit) → repair → read against what was shown → analyse → (test-run) →
 * feed the typed problems back, up to `maxAttempts` (default 5), stopping at the first attempt that
 * passes. An attempt passes when it brings no error the current workflow did not already have.
 */
export async function generateWorkflow(o: GenerateOptions): Promise<GenerationResult> {
  const maxAttempts = o.maxAttempts ?? 5;
  const shown = o.current ? viewOf(o.current) : undefined;
  const idOf = (id: string) => shown?.projection.toCompact.get(id) ?? id;
  const userTurn = turnPrompt(
    o.instruction,
    o.current && shown ? { summary: variableSummary(o.current, idOf), compact: shown.projection.compact } : undefined,
  );
  const messages: ChatMessage[] = [
    { role: "system", content: systemPrompt() },
    ...(o.history ?? []),
    { role: "user", content: userTurn },
  ];
  const baseDiagnostics = o.current ? analyse(o.current, nodeCatalogue).diagnostics : [];
  const attempts: GenerationAttempt[] = [];
  let best: GenerationResult | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const resp = await o.llm.chat({ model: o.model, messages, signal: o.signal });
    const reading = readAnswer(resp.text, {
      current: o.current,
      shown,
      name: o.name,
      mode: o.mode,
      compact: o.compact,
      baseDiagnostics,
    });
    const { parsed, proposal, problems, toCompact } = reading;
    if (proposal && problems.length === 0) problems.push(...(await testRuns(o, proposal.workflow)));
    const passed = problems.length === 0 && !!proposal;
    const rec: GenerationAttempt = { attempt, answer: resp.text, repairs: parsed.repairs, problems, passed };
    attempts.push(rec);
    o.onAttempt?.(rec);
    const result: GenerationResult = {
      workflow: proposal?.workflow,
      passed,
      proposal,
      sections: parsed.sections,
      attempts,
      turn: [
        { role: "user", content: o.instruction },
        { role: "assistant", content: resp.text },
      ],
    };
    if (passed) return result;
    if (proposal || !best) best = result;
    messages.push(
      { role: "assistant", content: resp.text },
      { role: "user", content: feedbackPrompt(problems.map((p) => formatForModel(p, toCompact))) },
    );
  }
  return { ...best!, attempts, passed: false };
}
