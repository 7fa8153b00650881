import type { ExecContext, ReadResult } from "../../src/ir/registry.js";
import { replaceTemplateRefs } from "../../src/ir/selector.js";
import type { ExecServices } from "../../src/ir/services.js";
import type { WorkflowNode } from "../../src/ir/workflow.js";

/**
 * A minimal ExecContext for executor tests: a two-level pool (`node.var`), deeper path parts indexing
 * into values, and Dify text rendering (objects as JSON, a missing reference as its bare `id.var`).
 */
export function fakeCtx<C>(opts: {
  node: Omit<WorkflowNode, "config"> & { config?: Record<string, unknown> };
  config: C;
  pool?: Record<string, Record<string, unknown>>;
  services?: Partial<ExecServices>;
}): ExecContext<C> & { events: unknown[] } {
  const pool = opts.pool ?? {};
  const events: unknown[] = [];
  const read = (sel: readonly string[]): ReadResult => {
    const [head, name, ...path] = sel;
    const vars = pool[head ?? ""];
    if (!vars || name === undefined || !(name in vars)) return { found: false };
    let v: unknown = vars[name];
    for (const p of path) v = v && typeof v === "object" ? (v as Record<string, unknown>)[p] : null;
    return { found: true, value: v ?? null };
  };
  const node: WorkflowNode = { config: {}, ...opts.node };
  return {
    workflow: {
      weft: 1,
      name: "t",
      description: "",
      mode: "workflow",
      nodes: [node],
      edges: [],
      environment_variables: [],
      conversation_variables: [],
    },
    node,
    config: opts.config,
    runId: "run-1",
    key: node.id,
    runInputs: {},
    attempt: 1,
    feedback: [],
    read,
    render: (text) =>
      replaceTemplateRefs(text, (sel) => {
        const r = read(sel);
        if (!r.found) return sel.join(".");
        const v = r.value;
        if (v === null || v === undefined) return "";
        return typeof v === "string" ? v : JSON.stringify(v);
      }),
    emit: (e) => events.push(e),
    writeVariable: () => {
      throw new Error("not used");
    },
    runBody: async () => {
      throw new Error("not used");
    },
    services: { now: () => new Date("2026-03-15T04:05:06Z"), random: () => 0.5, ...opts.services },
    signal: new AbortController().signal,
    events,
  };
}
