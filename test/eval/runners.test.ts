import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lineChartSvg, passKCurveSvg } from "../../src/eval/plot.js";
import { markdownReport, summarise, writeReport } from "../../src/eval/sopbench/report.js";
import { evaluateWorkflowOnDomain } from "../../src/eval/sopbench/run-workflow.js";
import { loadReferenceWorkflow } from "../../src/eval/sopbench/workflows/index.js";
import { buildWorkflow } from "../support/build.js";
import { replayLlm } from "../support/replay-llm.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => server.close());
beforeEach(() => server.reset());

/** An LLM-backed "solver" for order_fulfillment: the answer comes from the model, so it can vary per run. */
const llmWorkflow = () =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "order_id", type: "text-input" }] },
      {
        id: "llm",
        type: "llm",
        model: { provider: "openai", name: "solver", mode: "chat", completion_params: {} },
        prompt_template: [{ role: "user", text: "Decide order {{#start.order_id#}}" }],
        context: { enabled: false, variable_selector: [] },
      },
      { id: "end", type: "end", outputs: [{ variable: "expected_output", value_selector: ["llm", "text"] }] },
    ],
    edges: [
      ["start", "llm"],
      ["llm", "end"],
    ],
  });

describe("evaluateWorkflowOnDomain", () => {
  it("scores the reference workflow with n runs: deterministic, so pass^k is flat", async () => {
    const r = await evaluateWorkflowOnDomain(loadReferenceWorkflow("order_fulfillment"), "order_fulfillment", {
      runs: 3,
    });
    expect(r.n).toBe(3);
    expect(r.tasks).toBe(30);
    expect(r.perRun).toHaveLength(3);
    expect(r.strict).toBeCloseTo(26 / 30, 12);
    expect(r.passAtK.map((p) => p.k)).toEqual([1, 2, 3]);
    for (const p of r.passAtK) {
      expect(p.strict).toBeCloseTo(26 / 30, 12);
      expect(p.lenient).toBeCloseTo(26 / 30, 12);
    }
    expect(r.ceiling).toBe(26);
    expect(summarise(r)).toEqual({
      domain: "order_fulfillment",
      tasks: 30,
      n: 3,
      strict: r.strict,
      lenient: r.lenient,
      passAtK: r.passAtK,
    });
  });

  it("pass^k falls with k when runs disagree (LLM workflow against a local model server)", async () => {
    // ORD001 always right, ORD002 right on its first call only, ORD003 never right.
    const calls = new Map<string, number>();
    server.when(
      (req) => req.api === "openai-chat",
      (req) => {
        const text = JSON.stringify(req.body.messages);
        const id = /ORD00\d/.exec(text)?.[0] ?? "";
        const seen = (calls.get(id) ?? 0) + 1;
        calls.set(id, seen);
        if (id === "ORD001") return reply.text("fulfill_immediately");
        if (id === "ORD002") return reply.text(seen === 1 ? "fulfill_immediately" : "backorder");
        return reply.text("cancel");
      },
      { times: Infinity },
    );
    const llm = replayLlm(server);
    const r = await evaluateWorkflowOnDomain(llmWorkflow(), "order_fulfillment", {
      runs: 3,
      limit: 3,
      services: { llm },
    });
    expect(r.perRun.map((s) => s.strictCorrect)).toEqual([2, 1, 1]);
    expect(r.strict).toBeCloseTo(4 / 9, 12);
    expect(r.passAtK.map((p) => p.strict)).toEqual([
      expect.closeTo(4 / 9, 12),
      expect.closeTo(1 / 3, 12),
      expect.closeTo(1 / 3, 12),
    ]);
    expect(server.requests.filter((q) => q.api === "openai-chat")).toHaveLength(9);
  });

  it("a failing run scores its row 0 with the error recorded; tool services are fresh per task", async () => {
    // No LLM configured: every run fails at the llm node.
    const r = await evaluateWorkflowOnDomain(llmWorkflow(), "order_fulfillment", { limit: 2 });
    expect(r.strict).toBe(0);
    expect(r.perRun[0]!.errors).toBe(2);
    expect(r.perRun[0]!.rows[0]!.error).toMatch(/llm/i);
  });

  it("rejects a bad run count with a typed error", async () => {
    await expect(
      evaluateWorkflowOnDomain(loadReferenceWorkflow("order_fulfillment"), "order_fulfillment", { runs: 0 }),
    ).rejects.toMatchObject({ code: "sopbench.invalid_option" });
    await expect(evaluateWorkflowOnDomain(loadReferenceWorkflow("order_fulfillment"), "nope")).rejects.toMatchObject({
      code: "sopbench.unknown_domain",
    });
  });
});

describe("plot and report", () => {
  it("draws one polyline per series with a point per k, axes and escaped labels", () => {
    const svg = lineChartSvg(
      [
        {
          label: "a<b",
          points: [
            { x: 1, y: 1 },
            { x: 2, y: 0.5 },
            { x: 3, y: 0.25 },
          ],
        },
        {
          label: "c",
          points: [
            { x: 1, y: 0 },
            { x: 2, y: 0 },
            { x: 3, y: 0 },
          ],
        },
      ],
      { title: "T & U", xLabel: "k", yLabel: "pass^k" },
    );
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(6);
    expect(svg).toContain("a&lt;b");
    expect(svg).toContain("T &amp; U");
    // y = 1 sits on the top of the frame (top margin 40), y = 0 at its bottom (400 - 50).
    const first = /points="([^"]+)"/.exec(svg)![1]!.split(" ")[0]!.split(",").map(Number);
    expect(first).toEqual([60, 40]);
    expect(svg).toMatch(/,350\.00/);
  });

  it("a single k still renders (point, no polyline)", () => {
    const svg = passKCurveSvg([{ k: 1, strict: 0.8, lenient: 0.9 }], "one run");
    expect(svg.match(/<polyline/g)).toBeNull();
    expect(svg.match(/<circle/g)).toHaveLength(2);
  });

  it("writes results JSON, a Markdown table and the SVG", async () => {
    const r = await evaluateWorkflowOnDomain(loadReferenceWorkflow("dangerous_goods"), "dangerous_goods", {
      runs: 2,
      limit: 10,
    });
    const dir = mkdtempSync(join(tmpdir(), "weft-sop-"));
    const files = writeReport(dir, r, "reference:dangerous_goods");
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
      "dangerous_goods.results.json",
      "dangerous_goods.md",
      "dangerous_goods.passk.svg",
    ]);
    const json = JSON.parse(readFileSync(files[0]!, "utf8"));
    expect(json.workflow).toBe("reference:dangerous_goods");
    expect(json.perRun[0].rows).toHaveLength(10);
    const md = readFileSync(files[1]!, "utf8");
    expect(md).toBe(markdownReport(r, "reference:dangerous_goods"));
    expect(md).toContain("| strict | 100.0% |");
    expect(md).toContain("| 2 | 100.0% | 100.0% |");
    expect(readFileSync(files[2]!, "utf8")).toContain("<polyline");
  });
});
