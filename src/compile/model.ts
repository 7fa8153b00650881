import { z } from "zod";
import { WeftError } from "../ir/errors.js";

/**
 * The artifact-driven workflow model the SOP compiler drafts. It is deliberately not Weft IR: steps say
 * which named artifacts they read and write, and control is a small structured language (sequence,
 * two-way branch, loop). Nesting is by id reference (a branch's `then` lists step/branch/loop ids), so the
 * JSON Schema the model is asked to fill has no recursion.
 */

export const ARTIFACT_TYPES = [
  "string",
  "number",
  "boolean",
  "object",
  "array[string]",
  "array[number]",
  "array[object]",
] as const;
export const ArtifactTypeSchema = z.enum(ARTIFACT_TYPES);
export type ArtifactType = z.infer<typeof ArtifactTypeSchema>;

/**
 * Construct ids become node ids (and `<id>_out` ids), which `{{#…#}}` references allow up to 50
 * characters; artifact names are output names, kept as identifiers. Task inputs keep their column names,
 * so artifacts may be longer than a template segment (30): the lowering reads those without templates.
 */
const Id = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,29}$/,
    "must be an identifier: a letter or _, then letters, digits or _, at most 30 characters",
  );
const Name = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    "must be an identifier: a letter or _, then letters, digits or _, at most 64 characters",
  );

export const InputDeclSchema = z.object({
  name: Name,
  type: ArtifactTypeSchema,
  description: z.string().optional(),
});

export const WriteSchema = z.object({
  name: Name,
  type: ArtifactTypeSchema,
  /** Tool steps: the field of the tool's JSON result this artifact is (dotted path); omitted = the tool's text. */
  field: z.string().optional(),
  description: z.string().optional(),
});
export type Write = z.infer<typeof WriteSchema>;

export const GATE_CHECKS = ["not_empty", "regex", "json_schema", "max_length", "min_length", "one_of"] as const;
export const GateSchema = z.object({
  artifact: Name,
  check: z.enum(GATE_CHECKS),
  value: z.unknown().optional(),
  message: z.string().optional(),
});
export type ModelGate = z.infer<typeof GateSchema>;

/** A tool argument: the artifact that supplies it, or a constant. */
export const ArgSchema = z.union([Name, z.object({ const: z.unknown() })]);
export type Arg = z.infer<typeof ArgSchema>;

export const StepSchema = z.object({
  id: Id,
  kind: z.enum(["agent", "tool", "code", "approval"]),
  title: z.string().optional(),
  /** One focused instruction: what this step does and nothing else. */
  instruction: z.string().min(1),
  reads: z.array(Name).default([]),
  writes: z.array(WriteSchema).default([]),
  /** Tool steps: the tool called. */
  tool: z.string().optional(),
  /** Tool steps: parameter → artifact or constant. */
  args: z.record(z.string(), ArgSchema).optional(),
  /** Agent steps: tools the agent may call (none = a single structured-output model call). */
  tools: z.array(z.string()).optional(),
  /** Code steps: JavaScript `function main({…}) { return {…} }` over the read artifacts, returning the writes. */
  code: z.string().optional(),
  /** Tool steps: "continue" lets a refused call through with empty results, for SOPs that handle refusals. */
  on_error: z.enum(["fail", "continue"]).optional(),
  gates: z.array(GateSchema).default([]),
  /** Approval steps: hours the approver has before the step records `timeout` (0 = waits forever). */
  timeout_hours: z.number().min(0).optional(),
  /** The SOP text this step implements (for obligations and reports). */
  source: z.string().optional(),
});
export type Step = z.infer<typeof StepSchema>;

/** One comparison in Dify's condition vocabulary, on an artifact (optionally a path inside it). */
export const AtomSchema = z.object({
  artifact: Name,
  path: z.array(z.string()).optional(),
  comparison_operator: z.string(),
  value: z.unknown().optional(),
});
export type Atom = z.infer<typeof AtomSchema>;

export const ConditionSchema = z.object({
  logical_operator: z.enum(["and", "or"]).default("and"),
  conditions: z.array(AtomSchema).min(1),
});
export type ModelCondition = z.infer<typeof ConditionSchema>;

export const BranchSchema = z.object({
  id: Id,
  condition: ConditionSchema,
  // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
  then: z.array(Id).default([]),
  else: z.array(Id).default([]),
  /** Id of the SOP decision (from the source-logic extraction) this branch implements. */
  decision: z.string().optional(),
  source: z.string().optional(),
});
export type Branch = z.infer<typeof BranchSchema>;

export const LoopSchema = z.object({
  id: Id,
  body: z.array(Id).min(1),
  /** Checked before the first round and after each: true stops the loop. */
  break_condition: ConditionSchema,
  max_rounds: z.number().int().min(1).max(100).default(10),
  decision: z.string().optional(),
  source: z.string().optional(),
});
export type Loop = z.infer<typeof LoopSchema>;

export const OutputSchema = z.object({ name: Name, artifact: Name });

export const SopModelSchema = z.object({
  name: z.string().default("compiled-sop"),
  description: z.string().default(""),
  inputs: z.array(InputDeclSchema).default([]),
  steps: z.array(StepSchema).min(1),
  branches: z.array(BranchSchema).default([]),
  loops: z.array(LoopSchema).default([]),
  /** The top-level sequence: ids of steps, branches and loops, in order. */
  flow: z.array(Id).min(1),
  outputs: z.array(OutputSchema).min(1),
});
export type SopModel = z.infer<typeof SopModelSchema>;
export type SopModelInput = z.input<typeof SopModelSchema>;

/** A model that breaks the schema or its own structure; `issues` name the path and reason. */
export class ModelError extends WeftError {}

export interface ModelIssue {
  path: string;
  message: string;
}

/** The control tree the id references describe. */
export type Item =
  | { kind: "step"; step: Step }
  | { kind: "branch"; branch: Branch; then: Item[]; else: Item[] }
  | { kind: "loop"; loop: Loop; body: Item[] };

/**
 * Parse and check structure: every flow id names exactly one construct, each construct is used exactly once
 * (so the tree is a tree), step kinds carry what they need. Throws ModelError listing every issue.
 */
export function parseModel(raw: unknown): SopModel {
  const parsed = SopModelSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 30)
      .map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));
    throw new ModelError(
      "compile.model_invalid",
      `the workflow model does not match its schema:\n${formatIssues(issues)}`,
      { issues },
    );
  }
  const m = parsed.data;
  const issues = structureIssues(m);
  if (issues.length) {
    throw new ModelError("compile.model_structure", `the workflow model is not well formed:\n${formatIssues(issues)}`, {
      issues,
    });
  }
  return m;
}

export function formatIssues(issues: readonly ModelIssue[]): string {
  return issues.map((i) => `- ${i.path}: ${i.message}`).join("\n");
}

function structureIssues(m: SopModel): ModelIssue[] {
  const issues: ModelIssue[] = [];
  const kinds = new Map<string, string>();
  const declare = (id: string, kind: string, path: string) => {
    if (kinds.has(id))
      issues.push({ path, message: `id "${id}" is used by two constructs (${kinds.get(id)} and ${kind})` });
    else kinds.set(id, kind);
  };
  m.steps.forEach((s, i) => {
    declare(s.id, "step", `steps.${i}.id`);
  });
  m.branches.forEach((b, i) => {
    declare(b.id, "branch", `branches.${i}.id`);
  });
  m.loops.forEach((l, i) => {
    declare(l.id, "loop", `loops.${i}.id`);
  });
  for (const name of [...m.inputs.map((x) => x.name)]) {
    if (kinds.has(name))
      issues.push({ path: "inputs", message: `input "${name}" has the same name as a ${kinds.get(name)}` });
  }
  const used = new Map<string, string>();
  const use = (ids: string[], path: string) => {
    ids.forEach((id, i) => {
      if (!kinds.has(id)) issues.push({ path: `${path}.${i}`, message: `"${id}" is not a step, branch or loop id` });
      else if (used.has(id))
        issues.push({
          path: `${path}.${i}`,
          message: `"${id}" is already placed at ${used.get(id)}; each construct appears once`,
        });
      else used.set(id, `${path}.${i}`);
    });
  };
  use(m.flow, "flow");
  m.branches.forEach((b, i) => {
    use(b.then, `branches.${i}.then`);
    use(b.else, `branches.${i}.else`);
  });
  m.loops.forEach((l, i) => {
    use(l.body, `loops.${i}.body`);
  });
  for (const id of kinds.keys())
    if (!used.has(id)) issues.push({ path: id, message: `"${id}" is defined but never placed in the flow` });
  // A construct placed inside itself (directly or not) would make the tree infinite.
  const children = new Map<string, string[]>();
  for (const b of m.branches) children.set(b.id, [...b.then, ...b.else]);
  for (const l of m.loops) children.set(l.id, l.body);
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (id: string): void => {
    if (done.has(id)) return;
    if (visiting.has(id)) {
      issues.push({ path: id, message: `"${id}" contains itself` });
      return;
    }
    visiting.add(id);
    for (const c of children.get(id) ?? []) visit(c);
    visiting.delete(id);
    done.add(id);
  };
  for (const id of children.keys()) visit(id);
  m.steps.forEach((s, i) => {
    const p = `steps.${i}`;
    if (s.kind === "tool" && !s.tool) issues.push({ path: `${p}.tool`, message: `tool step "${s.id}" names no tool` });
    if (s.kind === "code" && !s.code?.trim())
      issues.push({ path: `${p}.code`, message: `code step "${s.id}" has no code` });
    if (s.kind === "code" && s.code && !/\bfunction\s+main\s*\(/.test(s.code))
      issues.push({ path: `${p}.code`, message: `code step "${s.id}" must define function main({...})` });
    if (s.kind === "approval")
      for (const w of s.writes)
        if (w.type !== "string" && w.type !== "boolean")
          issues.push({
            path: `${p}.writes`,
            message: `approval step "${s.id}" writes "${w.name}" as ${w.type}; a person answers text (string) or the decision (boolean)`,
          });
    if (s.kind !== "tool" && s.writes.length === 0)
      issues.push({ path: `${p}.writes`, message: `step "${s.id}" writes no artifact` });
    const names = new Set<string>();
    for (const w of s.writes) {
      if (names.has(w.name)) issues.push({ path: `${p}.writes`, message: `step "${s.id}" writes "${w.name}" twice` });
      names.add(w.name);
    }
    for (const g of s.gates) {
      if (!names.has(g.artifact))
        issues.push({ path: `${p}.gates`, message: `gate on "${g.artifact}", which step "${s.id}" does not write` });
    }
  });
  return issues;
}

/** Build the control tree from the id references (parseModel has checked they form a tree). */
export function controlTree(m: SopModel): Item[] {
  const steps = new Map(m.steps.map((s) => [s.id, s]));
  const branches = new Map(m.branches.map((b) => [b.id, b]));
  const loops = new Map(m.loops.map((l) => [l.id, l]));
  const build = (ids: string[]): Item[] =>
    ids.map((id): Item => {
      const s = steps.get(id);
      if (s) return { kind: "step", step: s };
      const b = branches.get(id);
      // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
      if (b) return { kind: "branch", branch: b, then: build(b.then), else: build(b.else) };
      const l = loops.get(id);
      if (l) return { kind: "loop", loop: l, body: build(l.body) };
      throw new ModelError("compile.model_structure", `"${id}" is not a step, branch or loop id`, { id });
    });
  return build(m.flow);
}

/** Every step in a subtree, in flow order. */
export function stepsOf(items: readonly Item[]): Step[] {
  return items.flatMap((it) =>
    it.kind === "step"
      ? [it.step]
      : it.kind === "branch"
        ? [...stepsOf(it.then), ...stepsOf(it.else)]
        : stepsOf(it.body),
  );
}

/** Artifacts a subtree writes. */
export function writesOf(items: readonly Item[]): Map<string, Write> {
  const out = new Map<string, Write>();
  for (const s of stepsOf(items)) for (const w of s.writes) out.set(w.name, w);
  return out;
}

/** The atoms of a model condition, for the dry runs. */
export function conditionArtifacts(c: ModelCondition): string[] {
  return [...new Set(c.conditions.map((a) => a.artifact))];
}
