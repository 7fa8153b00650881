import type { LlmService, ModelRef } from "../../ir/services.js";
import { chatJson, prompt } from "../llm.js";
import { controlTree, type Item, type ModelCondition, type SopModel, stepsOf } from "../model.js";
import type { SourceLogic } from "./source.js";

/**
 * Inductive faithfulness obligations, one per construct: every boundary of a sequence (the artifacts
 * between the halves are a valid boundary — checked mechanically — and both halves refine the SOP — a
 * judge call), every branch (guard consistency) and every loop (body refinement). Each judge call is
 * small and local: it sees the SOP and only the construct in question.
 */
export interface Obligation {
  kind: "sequence" | "branch" | "loop";
  /** Construct id; for sequences `<first>|<second>` (the items either side of the boundary). */
  construct: string;
  holds: boolean;
  reason: string;
  /** Sequence only: artifacts the second half reads that neither the inputs nor the first half supply. */
  missingAtBoundary?: string[];
}

export function describeCondition(c: ModelCondition): string {
  const parts = c.conditions.map(
    (a) =>
      `${[a.artifact, ...(a.path ?? [])].join(".")} ${a.comparison_operator}${a.value === undefined ? "" : ` ${JSON.stringify(a.value)}`}`,
  );
  return parts.join(` ${c.logical_operator} `);
}

export function describeItems(items: readonly Item[], indent = ""): string {
  if (items.length === 0) return `${indent}(nothing)`;
  return items
    .map((it) => {
      if (it.kind === "step") {
        const s = it.step;
        const tool = s.kind === "tool" ? ` tool ${s.tool}` : s.tools?.length ? ` tools ${s.tools.join(",")}` : "";
        return `${indent}- [${s.kind}${tool}] ${s.id}: ${s.instruction} (reads ${s.reads.join(", ") || "nothing"}; writes ${s.writes.map((w) => w.name).join(", ") || "nothing"})`;
      }
      if (it.kind === "branch")
        return `${indent}- branch ${it.branch.id}: if ${describeCondition(it.branch.condition)}\n${indent}  then:\n${describeItems(it.then, `${indent}    `)}\n${indent}  else:\n${describeItems(it.else, `${indent}    `)}`;
      return `${indent}- loop ${it.loop.id} until ${describeCondition(it.loop.break_condition)}:\n${describeItems(it.body, `${indent}    `)}`;
    })
    .join("\n");
}

function itemId(it: Item): string {
  return it.kind === "step" ? it.step.id : it.kind === "branch" ? it.branch.id : it.loop.id;
}

function readsOf(items: readonly Item[]): Set<string> {
  const out = new Set<string>();
  const walk = (xs: readonly Item[]) => {
    for (const it of xs) {
      if (it.kind === "step") {
        for (const r of it.step.reads) out.add(r);
        for (const a of Object.values(it.step.args ?? {})) if (typeof a === "string") out.add(a);
      } else if (it.kind === "branch") {
        for (const a of it.branch.condition.conditions) out.add(a.artifact);
        walk(it.then);
        walk(it.else);
      } else {
        for (const a of it.loop.break_condition.conditions) out.add(a.artifact);
        walk(it.body);
      }
    }
  };
  walk(items);
  return out;
}

interface Pending {
  kind: Obligation["kind"];
  construct: string;
  promptName: string;
  vars: Record<string, string>;
  missingAtBoundary?: string[];
  /** Loop only: the break condition's artifacts, none of which the body writes. */
  stuck?: string[];
}

/** Enumerate the obligations of a model (no model calls). */
export function enumerateObligations(m: SopModel, logic?: SourceLogic): Pending[] {
  const out: Pending[] = [];
  const decision = (id?: string) => {
    const d = id ? logic?.decisions.find((x) => x.id === id) : undefined;
    return d ? `${d.id}: ${d.description}` : "(not named)";
  };
  const available = new Set(m.inputs.map((i) => i.name));
  const sequence = (items: readonly Item[], before: Set<string>) => {
    for (let i = 1; i < items.length; i++) {
      const left = items.slice(0, i);
      const right = items.slice(i);
      const leftWrites = new Set(stepsOf(left).flatMap((s) => s.writes.map((w) => w.name)));
      const rightWrites = new Set(stepsOf(right).flatMap((s) => s.writes.map((w) => w.name)));
      const needed = [...readsOf(right)].filter((a) => !rightWrites.has(a) || leftWrites.has(a));
      const boundary = needed.filter((a) => leftWrites.has(a));
      const missing = needed.filter((a) => !leftWrites.has(a) && !before.has(a));
      out.push({
        kind: "sequence",
        construct: `${itemId(items[i - 1]!)}|${itemId(items[i]!)}`,
        promptName: "obligation-sequence",
        vars: { left: describeItems(left), right: describeItems(right), boundary: boundary.join(", ") || "(none)" },
        missingAtBoundary: missing,
      });
    }
    const scope = new Set(before);
    for (const it of items) {
      if (it.kind === "branch") {
        out.push({
          kind: "branch",
          construct: it.branch.id,
          promptName: "obligation-branch",
          vars: {
            decision: decision(it.branch.decision),
            guard: describeCondition(it.branch.condition),
            // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
            then: `\n${describeItems(it.then)}`,
            else: `\n${describeItems(it.else)}`,
          },
        });
        sequence(it.then, scope);
        sequence(it.else, scope);
      } else if (it.kind === "loop") {
        const bodyWrites = new Set(stepsOf(it.body).flatMap((s) => s.writes.map((w) => w.name)));
        const tested = [...new Set(it.loop.break_condition.conditions.map((a) => a.artifact))];
        out.push({
          kind: "loop",
          construct: it.loop.id,
          promptName: "obligation-loop",
          vars: {
            decision: decision(it.loop.decision),
            body: `\n${describeItems(it.body)}`,
            guard: describeCondition(it.loop.break_condition),
            max: String(it.loop.max_rounds),
          },
          // The body must change something the break condition tests, or only max_rounds ends the loop.
          ...(tested.some((a) => bodyWrites.has(a)) ? {} : { stuck: tested }),
        });
        sequence(it.body, scope);
      }
      for (const s of stepsOf([it])) for (const w of s.writes) scope.add(w.name);
    }
  };
  sequence(controlTree(m), available);
  return out;
}

const VERDICT_SCHEMA = {
  type: "object",
  properties: { holds: { type: "boolean" }, reason: { type: "string" } },
  required: ["holds", "reason"],
};

/** Judge every obligation (one focused call each). A mechanically broken boundary fails without a call. */
export async function checkObligations(o: {
  llm: LlmService;
  model: ModelRef;
  sop: string;
  sopModel: SopModel;
  logic?: SourceLogic;
}): Promise<Obligation[]> {
  const out: Obligation[] = [];
  for (const p of enumerateObligations(o.sopModel, o.logic)) {
    if (p.missingAtBoundary?.length) {
      out.push({
        kind: p.kind,
        construct: p.construct,
        holds: false,
        reason: `the second half reads ${p.missingAtBoundary.join(", ")}, which nothing before it supplies`,
        missingAtBoundary: p.missingAtBoundary,
      });
      continue;
    }
    if (p.stuck) {
      out.push({
        kind: p.kind,
        construct: p.construct,
        holds: false,
        reason: `the body never writes ${p.stuck.join(", ")}, which the break condition tests: only max_rounds can end the loop`,
      });
      continue;
    }
    const pr = prompt(p.promptName, { sop: o.sop, ...p.vars });
    const raw = (await chatJson({
      llm: o.llm,
      model: o.model,
      messages: [
        { role: "system", content: pr.system },
        { role: "user", content: pr.user },
      ],
      schema: VERDICT_SCHEMA,
      name: "obligation_verdict",
      stage: `obligation ${p.kind} ${p.construct}`,
    })) as { holds?: unknown; reason?: unknown };
    out.push({
      kind: p.kind,
      construct: p.construct,
      holds: raw.holds === true,
      reason: typeof raw.reason === "string" ? raw.reason : "",
      ...(p.missingAtBoundary ? { missingAtBoundary: p.missingAtBoundary } : {}),
    });
  }
  return out;
}

export function obligationFeedback(list: readonly Obligation[]): string[] {
  return list.filter((o) => !o.holds).map((o) => `The ${o.kind} obligation for "${o.construct}" fails: ${o.reason}`);
}
