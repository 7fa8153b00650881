// Run cost: tokens summed per model from a run's attempts (the model each node names), priced by the table.
import { describe, expect, it } from "vitest";
import { PriceTableSchema, usageOfAttempts } from "../../src/observability/cost.js";
import { rootIdsOf } from "../../src/observability/tracing.js";
import { buildWorkflow } from "../support/build.js";

const llm = (id: string, name: string) => ({
  id,
  type: "llm",
  model: { provider: "openai", name, mode: "chat", completion_params: {} },
  prompt_template: [{ role: "user", text: "hi" }],
  context: { enabled: false, variable_selector: [] },
  vision: { enabled: false },
});
const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [] },
    llm("a", "gpt-4o-mini"),
    llm("b", "local-model"),
    { id: "end", type: "end", outputs: [] },
  ],
  edges: [
    ["start", "a"],
    ["a", "b"],
    ["b", "end"],
  ],
});
const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });
const attempts = [
  { nodeId: "start" },
  { nodeId: "a", usage: usage(1000, 200) },
  { nodeId: "a", usage: usage(500, 100) },
  { nodeId: "b", usage: usage(10, 5) },
];

describe("run cost", () => {
  it("sums tokens per model and prices the priced ones, naming the rest", () => {
    const prices = PriceTableSchema.parse({
      models: { "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 } },
    });
    const u = usageOfAttempts(wf, attempts, prices);
    expect(u).toMatchObject({ inputTokens: 1510, outputTokens: 305, totalTokens: 1815, currency: "USD" });
    expect(u.byModel["gpt-4o-mini"]).toMatchObject({ inputTokens: 1500, outputTokens: 300 });
    expect(u.cost).toBeCloseTo((1500 * 0.15 + 300 * 0.6) / 1e6, 12);
    expect(u.unpriced).toEqual(["local-model"]);
  });

  it("without a price table reports tokens and no cost; a bad table is refused", () => {
    const u = usageOfAttempts(wf, attempts);
    expect(u.totalTokens).toBe(1815);
    expect(u.cost).toBeUndefined();
    expect(() => PriceTableSchema.parse({ models: { m: { inputPerMillion: -1, outputPerMillion: 0 } } })).toThrow();
  });

  it("a run's root trace ids follow from its id (what resumed segments link to)", () => {
    const a = rootIdsOf("run-1");
    expect(a).toEqual(rootIdsOf("run-1"));
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(a.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(rootIdsOf("run-2").traceId).not.toBe(a.traceId);
  });
});
