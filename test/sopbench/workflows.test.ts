import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { exportDify } from "../../src/dsl/dify/index.js";
import { parseWorkflowText } from "../../src/dsl/load.js";
import { runWorkflow } from "../../src/engine/run.js";
import {
  CEILINGS,
  domains,
  loadDomain,
  normalise,
  SopBenchToolService,
  scoreDomain,
} from "../../src/eval/sopbench/index.js";
import { evaluateWorkflowOnDomain, type WorkflowEvalResult } from "../../src/eval/sopbench/run-workflow.js";
import { WORKFLOW_BUILDERS } from "../../src/eval/sopbench/workflows/builders/index.js";
import { loadReferenceWorkflow, referenceWorkflowPath } from "../../src/eval/sopbench/workflows/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { REFERENCE_SOLVERS } from "./solvers/index.js";

/** know_your_business has no rule-reachable ceiling (judgment labels); the TS reference solver gets 83/90. */
const KYB_REFERENCE = 83;
const results: WorkflowEvalResult[] = [];

describe("SOP-Bench reference workflows (Weft IR, no LLM) reach each domain's ceiling on the engine", () => {
  afterAll(() => {
    const lines = results
      .sort((a, b) => a.domain.localeCompare(b.domain))
      .map((r) => {
        const s = r.perRun[0]!;
        return `${r.domain.padEnd(30)} strict ${String(s.strictCorrect).padStart(3)}/${s.n} (${(r.strict * 100).toFixed(1)}%)  lenient ${String(s.lenientCorrect).padStart(3)}/${s.n} (${(r.lenient * 100).toFixed(1)}%)  ceiling ${r.ceiling ?? `judgment (TS solver ${KYB_REFERENCE})`}`;
      });
    console.log(`\nSOP-Bench reference workflows on the engine (validation: structural)\n${lines.join("\n")}`);
  });

  it("has a reference workflow for every domain", () => {
    expect(Object.keys(WORKFLOW_BUILDERS).sort()).toEqual(domains());
  });

  for (const domain of domains()) {
    describe(domain, () => {
      it("the JSON file is what its builder emits, and is LLM-free", () => {
        const built = WORKFLOW_BUILDERS[domain]!();
        expect(JSON.parse(readFileSync(referenceWorkflowPath(domain), "utf8"))).toEqual(
          JSON.parse(JSON.stringify(built)),
        );
        const wf = loadReferenceWorkflow(domain);
        const types = new Set(wf.nodes.map((n) => n.type));
        for (const t of ["llm", "agent", "question-classifier", "parameter-extractor"])
          expect(types.has(t)).toBe(false);
        const providers = new Set(wf.nodes.filter((n) => n.type === "tool").map((n) => n.config.provider_id));
        expect([...providers]).toEqual([`sopbench/${domain}`]);
        // Dify renders constant tool parameters as text: typed literals must come from a node instead.
        for (const n of wf.nodes.filter((x) => x.type === "tool"))
          for (const p of Object.values(n.config.tool_parameters as Record<string, { type: string; value: unknown }>))
            if (p.type === "constant") expect(typeof p.value).toBe("string");
      });

      it("passes the analyser with no errors", () => {
        const { diagnostics } = analyse(loadReferenceWorkflow(domain), nodeCatalogue);
        expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      });

      it("scores at least the ceiling, strict and lenient", async () => {
        const r = await evaluateWorkflowOnDomain(loadReferenceWorkflow(domain), domain);
        results.push(r);
        const s = r.perRun[0]!;
        const ceiling = CEILINGS[domain]!;
        expect(s.n).toBe(ceiling.rows);
        expect(s.errors).toBe(0);
        expect(s.strictCorrect).toBeGreaterThanOrEqual(ceiling.reachable ?? KYB_REFERENCE);
        expect(s.lenientCorrect).toBeGreaterThanOrEqual(s.strictCorrect);
        expect(r.strict).toBeCloseTo(s.strictCorrect / s.n, 12);
        // A faithful port: row by row, the workflow answers what the TS reference solver answers.
        const solver = await scoreDomain(domain, (t) => REFERENCE_SOLVERS[domain]!(t));
        const answers = (rows: typeof s.rows) =>
          Object.fromEntries(
            rows.map((row) => [row.taskId, Object.values(row.fields).map((f) => normalise(f.predicted))]),
          );
        expect(answers(s.rows)).toEqual(answers(solver.rows));
      }, 120_000);
    });
  }

  it("every reference workflow survives a Dify YAML round trip and still scores the same", async () => {
    for (const domain of domains()) {
      const wf = loadReferenceWorkflow(domain);
      const back = parseWorkflowText(exportDify(wf), domain);
      expect(back.format).toBe("dify");
      expect(analyse(back.workflow, nodeCatalogue).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const [a, b] = await Promise.all([
        evaluateWorkflowOnDomain(wf, domain, { limit: 40 }),
        evaluateWorkflowOnDomain(back.workflow, domain, { limit: 40 }),
      ]);
      expect(b.perRun[0]!.errors).toBe(0);
      expect(b.perRun[0]!.rows.map((r) => r.strict)).toEqual(a.perRun[0]!.rows.map((r) => r.strict));
    }
  }, 120_000);

  it("the analyser is live on these files: a broken selector is an error", () => {
    const wf = loadReferenceWorkflow("order_fulfillment");
    const decision = wf.nodes.find((n) => n.id === "decision")!;
    const params = decision.config.tool_parameters as Record<string, { value: unknown }>;
    params.inventory_status!.value = ["no_such_node", "json"];
    const errors = analyse(wf, nodeCatalogue).diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.nodeId)).toContain("decision");
  });

  it("a refused tool step takes the fail branch (video_annotation vid_00105: segmentation refuses → false)", async () => {
    const task = loadDomain("video_annotation").tasks.find((t) => t.taskId === "vid_00105")!;
    const tools = new SopBenchToolService("video_annotation");
    const r = await runWorkflow(loadReferenceWorkflow("video_annotation"), {
      inputs: { ...task.inputs },
      services: { tools, sandbox: createSandbox() },
    });
    expect(r.status).toBe("partial-succeeded");
    expect(r.trace.find((a) => a.nodeId === "segmentation")?.status).toBe("failed");
    expect(r.trace.find((a) => a.nodeId === "refused")?.status).toBe("succeeded");
    expect(r.trace.some((a) => a.nodeId === "checks")).toBe(false);
    expect(r.outputs).toEqual({ "final status": false });
    expect(task.expected["final status"]).toBe(false);
  });
});
