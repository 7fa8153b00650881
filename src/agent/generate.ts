import type { CompactOptions } from "../dsl/compact/to-ir.js";
import { variableSummary } from "../dsl/compact/summary.js";
import { workflowToCompact } from "../dsl/compact/from-ir.js";
import { runWorkflow } from "../engine/run.js";
import { formatDiagnostic, type Diagnostic } from "../ir/diagnostics.js";
import type { ChatMessage, ExecServices, LlmService, ModelRef } from "../ir/services.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import { feedbackPrompt, systemPrompt, turnPrompt } from "./prompts.js";
import { readAnswer } from "./answer.js";
import type { AnswerSections, RepairRecord } from "./repair/index.js";

export interface GenerateOptions {
  llm: LlmService;
  model: ModelRef;
  instruction: string;
  /** Earlier turns of the chat (user instructions and the model's final answers). */
  history?: ChatMessage[];
  /** The workflow the previous turn produced; its variable summary is fed to this turn. */
  current?: Workflow;
  mode?: AppMode;
  name?: string;
  maxAttempts?: number;
  /** Example inputs: each attempt that validates is also test-run on these. */
  testInputs?: Array<Record<string, unknown>>;
  services?: Partial<ExecServices>;
  compact?: CompactOptions;
  onAttempt?: (a: GenerationAttempt) => void;
  signal?: AbortSignal;
}

export interface GenerationAttempt {
  attempt: number;
  answer: string;
  repairs: RepairRecord[];
  /** Errors found at this attempt (parse, conversion, analysis, test runs); empty when it passed. */
  problems: Diagnostic[];
  passed: boolean;
}

export interface GenerationResult {
  workflow?: Workflow;
  passed: boolean;
  sections?: AnswerSections;
  attempts: GenerationAttempt[];
  /** The conversation to carry into the next turn: the instruction and the final answer. */
  turn: ChatMessage[];
}

/** Each example input run on a workflow that validated: a failed or empty run is a problem to feed back. */
async function testRunProblems(workflow: Workflow, o: GenerateOptions): Promise<Diagnostic[]> {
  const problems: Diagnostic[] = [];
  for (const [i, inputs] of (o.testInputs ?? []).entries()) {
    const run = await runWorkflow(workflow, { inputs, services: o.services, signal: o.signal });
    if (run.status === "failed") {
      problems.push({ code: `run.${run.error?.code ?? "failed"}`, severity: "error", nodeId: run.error?.nodeId, message: `test run ${i + 1} failed: ${run.error?.message}` });
    } else if (Object.keys(run.outputs).length === 0 || Object.values(run.outputs).every((v) => v === null || v === "")) {
      problems.push({ code: "run.empty_output", severity: "error", message: `test run ${i + 1} produced no output` });
    }
  }
  return problems;
}

/**
 * Generate → repair → analyse → (test-run) → feed the typed problems back, up to `maxAttempts`
 * (default 5), stopping at the first workflow that passes.
 */
export async function generateWorkflow(o: GenerateOptions): Promise<GenerationResult> {
  const maxAttempts = o.maxAttempts ?? 5;
  const userTurn = turnPrompt(o.instruction, o.current ? { summary: variableSummary(o.current), compact: workflowToCompact(o.current) } : undefined);
  const messages: ChatMessage[] = [{ role: "system", content: systemPrompt() }, ...(o.history ?? []), { role: "user", content: userTurn }];
  const attempts: GenerationAttempt[] = [];
  let best: GenerationResult | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const resp = await o.llm.chat({ model: o.model, messages, signal: o.signal });
    const { parsed, workflow, problems } = readAnswer(resp.text, { name: o.name ?? o.current?.name, mode: o.mode ?? o.current?.mode, ...o.compact });
    if (workflow && problems.length === 0 && o.testInputs?.length) problems.push(...(await testRunProblems(workflow, o)));
    const passed = problems.length === 0 && !!workflow;
    const rec: GenerationAttempt = { attempt, answer: resp.text, repairs: parsed.repairs, problems, passed };
    attempts.push(rec);
    o.onAttempt?.(rec);
    const result: GenerationResult = {
      workflow,
      passed,
      sections: parsed.sections,
      attempts,
      turn: [
        { role: "user", content: o.instruction },
        { role: "assistant", content: resp.text },
      ],
    };
    if (passed) return result;
    if (workflow || !best) best = result;
    messages.push({ role: "assistant", content: resp.text }, { role: "user", content: feedbackPrompt(problems.map(formatDiagnostic)) });
  }
  return { ...best!, attempts, passed: false };
}
