import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { formatTaskInputs, loadDomain, type TaskInput } from "../../src/eval/sopbench/index.js";
import { mineWorkflow, type TaskRecord, treeActivities } from "../../src/mine/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { type Tools, tools } from "../sopbench/solvers/client.js";
import { REFERENCE_SOLVERS } from "../sopbench/solvers/index.js";

/** Runs the hand-written SOP follower and logs its tool calls: validated task-solving records. */
async function solverRecords(domain: string, n: number): Promise<TaskRecord[]> {
  const d = loadDomain(domain);
  const out: TaskRecord[] = [];
  for (const [index, t] of d.tasks.slice(0, n).entries()) {
    const task: TaskInput = { domain, taskId: t.taskId, index, inputs: t.inputs };
    const inner = tools(domain);
    const calls: TaskRecord["calls"] = [];
    const logged: Tools = {
      call: async (name, params) => {
        const r = await inner.call(name, params);
        calls.push({ tool: name, arguments: params, response: JSON.stringify(r) });
        return r;
      },
      tryCall: async (name, params) => {
        const r = await inner.tryCall(name, params);
        calls.push({
          tool: name,
          arguments: params,
          response: r instanceof Error ? `ERROR: ${r.message}` : JSON.stringify(r),
        });
        return r;
      },
      now: inner.now,
    };
    const result = await REFERENCE_SOLVERS[domain]!(task, {}, logged);
    out.push({ id: t.taskId, query: formatTaskInputs(task), reference: JSON.stringify(result), calls });
  }
  return out;
}

describe("mining SOP-Bench reference runs", () => {
  it("customer_service: the SOP's early exits become choices, and the mined workflow passes the analyser", async () => {
    const records = await solverRecords("customer_service", 40);
    const r = mineWorkflow(records, {
      model: { provider: "openai", name: "gpt-4o-mini" },
      providerId: "sopbench/customer_service",
    });
    expect(r.diagnostics.filter((x) => x.severity === "error")).toEqual([]);
    expect(analyse(r.workflow, nodeCatalogue).diagnostics.filter((x) => x.severity === "error")).toEqual([]);
    // Every task starts by validating the account.
    expect(r.tree.kind).toBe("seq");
    expect(treeActivities(r.tree)[0]).toBe("validateAccount");
    // Some tasks stop early (failed authentication, terminated account): optional parts appear.
    expect(r.treeText).toContain("X(tau");
    const used = new Set(records.flatMap((x) => x.calls.map((c) => c.tool)));
    expect(new Set(treeActivities(r.tree))).toEqual(used);
    expect(r.workflow.nodes.some((n) => n.type === "if-else")).toBe(true);
    // Branching on the previous step's outcome instead of the plan.
    const prev = mineWorkflow(records, { model: { provider: "openai", name: "gpt-4o-mini" }, choiceOn: "previous" });
    expect(analyse(prev.workflow, nodeCatalogue).diagnostics.filter((x) => x.severity === "error")).toEqual([]);
    const first = prev.workflow.nodes.find((n) => n.type === "if-else")!;
    expect((first.config as any).cases[0].conditions).toEqual([
      { variable_selector: ["call1", "result"], comparison_operator: "not empty" },
      { variable_selector: ["call1", "result"], comparison_operator: "not contains", value: "ERROR:" },
    ]);
    expect(r.treeText).toMatch(
      /^->\('validateAccount', X\(tau, 'getAuthenticationDetails'\), X\(tau, 'createSessionAndOpenTicket'\)/,
    );
  });
});
