import { NodeExecutionError, WeftError } from "../ir/errors.js";
import type { Workflow, WorkflowNode } from "../ir/workflow.js";
import { resolveStartInputs, type StartVariable, startNode } from "../nodes/start.js";

/** Run inputs refused before any run exists: an undeclared name, a missing required value, a bad value. */
export class InputError extends WeftError {}

type Declared = { nodeId: string; variables: StartVariable[] };

/**
 * Declared inputs of start nodes that cannot change (frozen: a store's shared published workflow), so a /v1
 * request does not parse the start node's schema again (twice per request: its inputs and its files).
 */
const declaredOfFrozen = new WeakMap<WorkflowNode, Declared>();

/** The inputs the workflow's top-level start node declares. */
export function declaredInputs(wf: Workflow): Declared | undefined {
  const start = wf.nodes.find((n) => n.type === "start" && !n.parentId);
  if (!start) return undefined;
  const kept = declaredOfFrozen.get(start);
  if (kept) return kept;
  const parsed = startNode.configSchema.safeParse(start.config ?? {});
  const declared = { nodeId: start.id, variables: (parsed.success ? parsed.data.variables : undefined) ?? [] };
  if (Object.isFrozen(start) && Object.isFrozen(start.config)) declaredOfFrozen.set(start, declared);
  return declared;
}

function listing(variables: readonly StartVariable[]): string {
  if (variables.length === 0) return "the workflow declares no inputs";
  const names = variables.map((v) => `${v.variable}${v.required ? " (required)" : ""}`);
  return `the workflow declares: ${names.join(", ")}`;
}

/** Edit distance, for a "did you mean" on a mistyped name. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

function suggestion(name: string, variables: readonly StartVariable[]): string {
  const near = variables
    .map((v) => ({ v: v.variable, d: distance(name.toLowerCase(), v.variable.toLowerCase()) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(x.v.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  return near ? ` (did you mean "${near.v}"?)` : "";
}

/** Refuse input names the workflow does not declare, naming the declared ones. */
export function checkInputNames(wf: Workflow, names: Iterable<string>): void {
  const variables = declaredInputs(wf)?.variables ?? [];
  const known = new Set(variables.map((v) => v.variable));
  for (const name of names) {
    if (!known.has(name)) {
      throw new InputError(
        "input.unknown",
        `"${name}" is not an input of this workflow${suggestion(name, variables)}; ${listing(variables)}`,
        {
          input: name,
          declared: [...known],
        },
      );
    }
  }
}

/** Refuse a missing required input or a value of the wrong type, as the start node would once running. */
export function checkRunInputs(wf: Workflow, inputs: Record<string, unknown>): void {
  const start = declaredInputs(wf);
  if (!start) return;
  try {
    resolveStartInputs(start.nodeId, start.variables, inputs);
  } catch (e) {
    if (!(e instanceof NodeExecutionError)) throw e;
    throw new InputError(e.code, e.message, { input: e.details.field });
  }
}
