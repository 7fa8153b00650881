import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { mineWorkflow } from "../../src/mine/index.js";
import { promptTemplate } from "../../src/mine/prompts.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { applyEdit, applyEdits, describeEdit, EDIT_KINDS, type Edit } from "../../src/optimize/edits.js";

const recs = (...ts: string[]) =>
  ts.map((t, i) => ({
    id: `r${i}`,
    query: "q",
    reference: "",
    calls: t.split("").map((tool) => ({ tool, arguments: {} })),
  }));
const mine = (...ts: string[]) =>
  mineWorkflow(recs(...ts), { model: { provider: "openai", name: "m" }, providerId: "dir" }).workflow;
const seqWf = () => mine("ab"); // start plan call1(a) call2(b) synth end
const choiceWf = () => mine("abd", "acd"); // … call1 choice1{c1→call2, false→call3} merge1 call4 …
const parWf = () => mine("abcd", "acbd"); // call1 → {call2, call3} → call4

function ok(wf: Workflow, e: Edit): Workflow {
  const r = applyEdit(wf, e);
  if (!r.ok) throw new Error(`edit rejected: ${JSON.stringify(r.diagnostics)}`);
  expect(analyse(r.workflow, nodeCatalogue).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return r.workflow;
}
const node = (wf: Workflow, id: string) => wf.nodes.find((n) => n.id === id)!;
const edges = (wf: Workflow) =>
  wf.edges.map((e) => `${e.source}${e.sourcePort !== "source" ? `:${e.sourcePort}` : ""}>${e.target}`).sort();
const synthUser = (wf: Workflow) =>
  ((node(wf, "synth").config as any).prompt_template as Array<{ role: string; text: string }>).find(
    (m) => m.role === "user",
  )!.text;
const email = { id: "email", type: "tool-call", config: { candidates: ["get_email"] } };

describe("edit API", () => {
  it("add_node after: rewires the successors through the new node, fills model/context and publishes its output", () => {
    const base = seqWf();
    const before = structuredClone(base);
    const wf = ok(base, { kind: "add_node", node: email, after: "call2" });
    expect(base).toEqual(before);
    expect(edges(wf)).toContain("call2>email");
    expect(edges(wf)).toContain("email>synth");
    expect(edges(wf)).not.toContain("call2>synth");
    const c = node(wf, "email").config as any;
    expect(c.model.name).toBe("m");
    expect(c.provider_id).toBe("dir");
    expect(c.context).toEqual([
      { variable: "task", value_selector: ["start", "query"] },
      { variable: "call2_result", value_selector: ["call2", "result"] },
    ]);
    expect(synthUser(wf)).toContain("{{#email.result#}}");
  });

  it("add_node before: inserts between the predecessors and the node, which then reads it", () => {
    const wf = ok(seqWf(), { kind: "add_node", node: email, before: "call2" });
    expect(edges(wf)).toEqual(expect.arrayContaining(["call1>email", "email>call2"]));
    expect((node(wf, "call2").config as any).context.map((b: any) => b.value_selector.join("."))).toContain(
      "email.result",
    );
  });

  it("bypass_node: connects predecessors to successors and drops references to it", () => {
    const wf = ok(seqWf(), { kind: "bypass_node", id: "call1" });
    expect(wf.nodes.map((n) => n.id)).not.toContain("call1");
    expect(edges(wf)).toContain("plan>call2");
    expect(synthUser(wf)).not.toContain("call1");
    expect(JSON.stringify(node(wf, "call2").config)).not.toContain("call1");
  });

  it("replace_node: merges or replaces the config, keeps id and edges", () => {
    const wf = ok(seqWf(), { kind: "replace_node", id: "call2", config: { candidates: ["a", "b"] } });
    expect((node(wf, "call2").config as any).candidates).toEqual(["a", "b"]);
    expect((node(wf, "call2").config as any).model.name).toBe("m");
    expect(edges(wf)).toEqual(edges(seqWf()));
    const tpl = ok(seqWf(), {
      kind: "replace_node",
      id: "call2",
      type: "template-transform",
      config: { template: "fixed", variables: [] },
      merge: false,
    });
    expect(node(tpl, "call2").type).toBe("template-transform");
    expect(synthUser(tpl)).toContain("{{#call2.output#}}");
  });

  it("add_edge, remove_edge and reconnect_edge", () => {
    const added = ok(parWf(), { kind: "add_edge", source: "call2", target: "call3" });
    expect(edges(added)).toContain("call2>call3");
    const removed = ok(added, { kind: "remove_edge", source: "call1", target: "call3" });
    expect(edges(removed)).not.toContain("call1>call3");
    const moved = ok(parWf(), { kind: "reconnect_edge", source: "call1", target: "call3", to: { source: "call2" } });
    expect(edges(moved)).toContain("call2>call3");
    expect(edges(moved)).not.toContain("call1>call3");
  });

  it("add_branch: a new if-else case whose node joins at the merge", () => {
    const wf = ok(choiceWf(), {
      kind: "add_branch",
      ifElse: "choice1",
      conditions: [{ selector: ["plan", "text"], operator: "contains", value: "email" }],
      node: email,
      join: "merge1",
    });
    const cases = (node(wf, "choice1").config as any).cases;
    expect(cases.map((c: any) => c.case_id)).toEqual(["c1", "c2"]);
    expect(edges(wf)).toEqual(expect.arrayContaining(["choice1:c2>email", "email>merge1"]));
    expect((node(wf, "merge1").config as any).variables).toContainEqual(["email", "result"]);
  });

  it("refine_branch: replaces a case's conditions", () => {
    const wf = ok(choiceWf(), {
      kind: "refine_branch",
      ifElse: "choice1",
      caseId: "c1",
      conditions: [{ selector: ["call1", "result"], operator: "not empty" }],
      logical_operator: "or",
    });
    expect((node(wf, "choice1").config as any).cases[0]).toMatchObject({
      logical_operator: "or",
      conditions: [{ variable_selector: ["call1", "result"], comparison_operator: "not empty" }],
    });
  });

  it("add_parallel_branch: from → node → join, and the join reads it", () => {
    const wf = ok(seqWf(), { kind: "add_parallel_branch", from: "plan", node: email, join: "synth" });
    expect(edges(wf)).toEqual(expect.arrayContaining(["plan>email", "email>synth", "plan>call1"]));
    expect(synthUser(wf)).toContain("{{#email.result#}}");
  });

  it("wrap_in_retry_loop: moves a chain into a loop container and redirects readers to the kept result", () => {
    const wf = ok(mine("abc"), { kind: "wrap_in_retry_loop", nodes: ["call2"], rounds: 2 });
    const loop = node(wf, "retry_call2");
    expect(loop.type).toBe("loop");
    expect((loop.config as any).loop_count).toBe(2);
    expect(node(wf, "call2").parentId).toBe("retry_call2");
    expect(edges(wf)).toEqual(
      expect.arrayContaining([
        "call1>retry_call2",
        "retry_call2>call3",
        "retry_call2_start>call2",
        "call2>retry_call2_save",
      ]),
    );
    expect(synthUser(wf)).toContain("{{#retry_call2.last#}}");
    expect(synthUser(wf)).not.toContain("{{#call2.result#}}");
    expect(JSON.stringify(node(wf, "call3").config)).toContain('["retry_call2","last"]');
  });

  it("refine_prompt: a system text, a library template, or a tool-call instruction", () => {
    const wf = ok(seqWf(), { kind: "refine_prompt", id: "synth", template: "synthesising/structured" });
    const sys = ((node(wf, "synth").config as any).prompt_template as any[]).find((m) => m.role === "system").text;
    expect(sys).toBe(promptTemplate("synthesising", "structured")!.system);
    const plan = ok(seqWf(), { kind: "refine_prompt", id: "plan", system: "Plan briefly." });
    expect(((node(plan, "plan").config as any).prompt_template as any[])[0].text).toMatch(/^Plan briefly\./);
    const ins = ok(seqWf(), { kind: "refine_prompt", id: "call2", instruction: "Use the id from call1." });
    expect((node(ins, "call2").config as any).instruction).toBe("Use the id from call1.");
  });

  it("covers every edit kind", () => {
    expect(EDIT_KINDS.sort()).toEqual(
      [
        "add_branch",
        "add_edge",
        "add_node",
        "add_parallel_branch",
        "refine_branch",
        "refine_prompt",
        "reconnect_edge",
        "remove_edge",
        "bypass_node",
        "replace_node",
        "wrap_in_retry_loop",
      ].sort(),
    );
  });
});

describe("invalid edits are rejected with diagnostics", () => {
  const rejected = (wf: Workflow, e: unknown) => {
    const r = applyEdit(wf, e as Edit);
    expect(r.ok).toBe(false);
    return r.ok ? [] : r.diagnostics;
  };

  it("structural problems name the node and field", () => {
    expect(rejected(seqWf(), { kind: "bypass_node", id: "ghost" })).toEqual([
      expect.objectContaining({ code: "edit.unknown_node", nodeId: "ghost", field: "id" }),
    ]);
    expect(rejected(seqWf(), { kind: "add_node", node: { ...email, id: "call1" }, after: "plan" })[0]!.code).toBe(
      "edit.duplicate_id",
    );
    expect(rejected(seqWf(), { kind: "bypass_node", id: "start" })[0]!.code).toBe("edit.protected_node");
    expect(rejected(seqWf(), { kind: "remove_edge", source: "plan", target: "synth" })[0]!.code).toBe(
      "edit.unknown_edge",
    );
    expect(
      rejected(seqWf(), {
        kind: "add_branch",
        ifElse: "call1",
        conditions: [{ selector: ["plan", "text"], operator: "empty" }],
        node: email,
        join: "synth",
      })[0]!.code,
    ).toBe("edit.wrong_type");
    expect(rejected(seqWf(), { kind: "refine_prompt", id: "synth", template: "poetry/haiku" })[0]!.code).toBe(
      "edit.unknown_template",
    );
    expect(rejected(seqWf(), { kind: "wrap_in_retry_loop", nodes: ["call2", "call1"] })[0]!.code).toBe(
      "edit.not_a_chain",
    );
    expect(rejected(seqWf(), { kind: "teleport", id: "x" })[0]!.code).toBe("edit.invalid");
  });

  it("an edit that breaks the workflow is rejected with the analyser's errors", () => {
    // A cycle outside a loop.
    const d = rejected(seqWf(), { kind: "add_edge", source: "synth", target: "plan" });
    expect(d.length).toBeGreaterThan(0);
    expect(d.every((x) => x.severity === "error")).toBe(true);
    // Wrapping call1 too hides call1.result, which synth reads, inside the loop.
    const d3 = rejected(seqWf(), { kind: "wrap_in_retry_loop", nodes: ["call1", "call2"] });
    expect(d3).toContainEqual(expect.objectContaining({ code: "template.unresolved", nodeId: "synth" }));
    // An if-else case that reads a value which does not exist.
    const d2 = rejected(choiceWf(), {
      kind: "refine_branch",
      ifElse: "choice1",
      caseId: "c1",
      conditions: [{ selector: ["nowhere", "x"], operator: "empty" }],
    });
    expect(d2.some((x) => x.nodeId === "choice1")).toBe(true);
  });

  it("applyEdits keeps the valid edits, skips rejected ones and reports them", () => {
    const r = applyEdits(seqWf(), [
      { kind: "bypass_node", id: "ghost" },
      { kind: "add_node", node: email, after: "call2" },
      { kind: "add_edge", source: "synth", target: "plan" },
    ]);
    expect(r.applied.map(describeEdit)).toEqual(["add tool-call email after call2"]);
    expect(r.rejected.map((x) => x.index)).toEqual([0, 2]);
    expect(r.workflow.nodes.some((n) => n.id === "email")).toBe(true);
  });
});
