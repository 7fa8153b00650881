/**
 * Expansion: ask the optimiser model for a plan of graph edits, computed from cached execution
 * feedback, and apply it through the edit API. Rejected edits (with their diagnostics) are sent back
 * for another attempt.
 */
import type { Diagnostic } from "../ir/diagnostics.js";
import { formatDiagnostic } from "../ir/diagnostics.js";
import type { LlmService, ModelRef, ToolSpec, Usage } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { describePromptLibrary } from "../mine/prompts.js";
import { parseJsonObject } from "../nodes/model-call.js";
import { applyEdits, describeEdit, EDIT_KINDS, type Edit } from "./edits.js";

export interface TriedEdit {
  edits: Edit[];
  reward: number;
}

export interface Proposal {
  workflow: Workflow;
  applied: Edit[];
  rejected: Array<{ edit: Edit; diagnostics: Diagnostic[] }>;
  rationale: string;
  attempts: number;
  usage: Usage;
}

const EDIT_DOC = `Edits (JSON objects, "kind" first). Each edit must leave a valid workflow on its own.
- {"kind":"add_node","node":{"id","type","title","config"},"after":ID}  insert between ID and its successors (or "before":ID)
- {"kind":"bypass_node","id":ID}  remove the node; predecessors are connected to successors, references dropped
- {"kind":"replace_node","id":ID,"type"?,"title"?,"config":{...},"merge":true}
- {"kind":"add_edge"|"remove_edge","source":ID,"sourcePort":"source","target":ID}
- {"kind":"reconnect_edge","source","sourcePort","target","to":{"source"?,"sourcePort"?,"target"?}}
- {"kind":"add_branch","ifElse":ID,"conditions":[{"selector":[ID,"text"],"operator":"contains","value":"x"}],"node":{...},"join":ID}
- {"kind":"refine_branch","ifElse":ID,"caseId":"c1","conditions":[...]}
- {"kind":"add_parallel_branch","from":ID,"node":{...},"join":ID}
- {"kind":"wrap_in_retry_loop","nodes":[ID,...],"rounds":3}  (a chain of top-level nodes)
- {"kind":"refine_prompt","id":ID,"system"?:TEXT,"template"?:"role/variant","user"?:TEXT,"instruction"?:TEXT}
A tool-calling position is {"type":"tool-call","config":{"candidates":[TOOL],"instruction":TEXT}} (model, provider and context are filled in).`;

export const OPTIMISER_SYSTEM = `You improve tool-using workflows. You get a workflow, its scores and execution feedback (the workflow's tool calls against reference tool calls, its answers against reference answers, node errors). Propose a small plan of graph edits that fixes the most important problem. Do not repeat an edit plan that was already tried from this workflow.

${EDIT_DOC}

Prompt templates (for refine_prompt "template"):
${describePromptLibrary()}

Answer with one JSON object: {"rationale": "...", "edits": [ ... ]}. Edit kinds: ${EDIT_KINDS.join(", ")}.`;

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** A compact text of the workflow for the optimiser: nodes with their key config, then edges. */
export function describeForOptimiser(wf: Workflow): string {
  const lines = ["Nodes:"];
  for (const n of wf.nodes) {
    const c = { ...n.config } as Record<string, unknown>;
    delete c.model;
    lines.push(
      `- ${n.id} [${n.type}]${n.parentId ? ` in ${n.parentId}` : ""} "${n.title}": ${clip(JSON.stringify(c), 500)}`,
    );
  }
  lines.push("Edges:");
  for (const e of wf.edges)
    lines.push(`- ${e.source}${e.sourcePort !== "source" ? `:${e.sourcePort}` : ""} → ${e.target}`);
  return lines.join("\n");
}

function toolsText(tools: ToolSpec[] | undefined): string {
  if (!tools || tools.length === 0) return "";
  return `# Available tools\n${tools.map((t) => `- ${t.name}: ${clip((t.description || "").replace(/\s+/g, " "), 160)}`).join("\n")}\n\n`;
}

function parseEdits(text: string): { rationale: string; edits: Edit[] } | undefined {
  const o = parseJsonObject(text);
  if (!o || !Array.isArray(o.edits)) return undefined;
  return { rationale: typeof o.rationale === "string" ? o.rationale : "", edits: o.edits as Edit[] };
}

export interface ProposeInput {
  llm: LlmService;
  model: ModelRef;
  workflow: Workflow;
  scores: { tc: number; es: number; reward: number };
  feedback: string;
  tried: TriedEdit[];
  /** Extra attempts after a plan whose edits were all rejected (default 1). */
  retries?: number;
  /** The tool catalogue, so new tool-calling positions can name real tools. */
  tools?: ToolSpec[];
}

export async function proposeEdits(i: ProposeInput): Promise<Proposal> {
  const tried =
    i.tried.length === 0
      ? "(none yet)"
      : i.tried
          .map((t, k) => `${k + 1}. [${t.edits.map(describeEdit).join("; ")}] → reward ${t.reward.toFixed(3)}`)
          .join("\n");
  const messages: Parameters<LlmService["chat"]>[0]["messages"] = [
    { role: "system", content: OPTIMISER_SYSTEM },
    {
      role: "user",
      content: `${toolsText(i.tools)}# Workflow\n${describeForOptimiser(i.workflow)}\n\n# Scores\nTC ${i.scores.tc.toFixed(3)}, ES ${i.scores.es.toFixed(3)}, reward ${i.scores.reward.toFixed(3)}\n\n# Feedback\n${i.feedback}\n\n# Edit plans already tried from this workflow\n${tried}`,
    },
  ];
  const usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const rejectedAll: Proposal["rejected"] = [];
  const retries = i.retries ?? 1;
  let rationale = "";
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    const res = await i.llm.chat({ model: i.model, messages, json: {} });
    usage.promptTokens += res.usage.promptTokens;
    usage.completionTokens += res.usage.completionTokens;
    usage.totalTokens += res.usage.totalTokens;
    const plan = parseEdits(res.text);
    if (!plan) {
      messages.push({ role: "assistant", content: res.text });
      messages.push({
        role: "user",
        content: 'That is not a JSON object {"rationale": ..., "edits": [...]}. Answer again with only that object.',
      });
      continue;
    }
    rationale = plan.rationale;
    const out = applyEdits(i.workflow, plan.edits);
    rejectedAll.push(...out.rejected.map((r) => ({ edit: r.edit, diagnostics: r.diagnostics })));
    if (out.applied.length > 0)
      return {
        workflow: out.workflow,
        applied: out.applied,
        rejected: rejectedAll,
        rationale,
        attempts: attempt,
        usage,
      };
    messages.push({ role: "assistant", content: res.text });
    messages.push({
      role: "user",
      content: `Every edit was rejected:\n${out.rejected
        .map(
          (r) =>
            `- edit ${r.index + 1} (${r.edit && typeof r.edit === "object" ? String((r.edit as { kind?: unknown }).kind) : "?"}): ${r.diagnostics.map(formatDiagnostic).join("; ")}`,
        )
        .join("\n")}\nFix them and answer again with the JSON object.`,
    });
  }
  return { workflow: i.workflow, applied: [], rejected: rejectedAll, rationale, attempts: retries + 1, usage };
}
