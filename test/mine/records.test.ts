import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRecords, MineError, mineWorkflow, parseRecords, splitRecords, tracesOf } from "../../src/mine/index.js";
import { corpusPath } from "../support/corpus.js";

const CORPUS = corpusPath("toolbench");

describe("task records", () => {
  it("validates the record format and names the bad field", () => {
    expect(parseRecords([{ id: "a", query: "q", calls: [{ tool: "t" }] }])).toEqual([
      { id: "a", query: "q", reference: "", calls: [{ tool: "t", arguments: {} }] },
    ]);
    expect(parseRecords({ records: [{ id: "a", query: "q" }] })).toHaveLength(1);
    const bad = () => parseRecords([{ id: "a", query: "q", calls: [{ arguments: {} }] }], "f.json");
    expect(bad).toThrow(MineError);
    expect(bad).toThrow(/calls\.0\.tool/);
    expect(() =>
      parseRecords([
        { id: "a", query: "q" },
        { id: "a", query: "r" },
      ]),
    ).toThrow(/appears twice/);
  });

  it("reads JSON Lines files", () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-rec-"));
    const f = join(dir, "r.jsonl");
    writeFileSync(f, '{"id":"1","query":"a"}\n\n{"id":"2","query":"b","calls":[{"tool":"x","arguments":{"k":1}}]}\n');
    expect(loadRecords(f).map((r) => r.id)).toEqual(["1", "2"]);
    expect(() => loadRecords(join(dir, "missing.json"))).toThrow(
      expect.objectContaining({ code: "mine.records_unreadable" }),
    );
  });

  it("loads validated ToolBench DFSDT answers with their final path's calls (Finish dropped)", () => {
    const recs = loadRecords(`${CORPUS}/toolbench/answer`);
    // 9 of the 15 answer files are wins that end in give_answer.
    expect(recs).toHaveLength(9);
    const r = recs.find((x) => x.id === "G1_answer/10_ChatGPT_DFS_woFilter_w2")!;
    expect(r.calls.map(({ tool, arguments: a }) => ({ tool, arguments: a }))).toEqual([
      { tool: "transitaires_for_transitaires", arguments: {} },
      { tool: "transitaire_for_transitaires", arguments: { is_id: "ACT_AGENCE_CALEDONIENNE_DE_TRANSIT" } },
    ]);
    // The logged observation of each call is kept for replay.
    expect(r.calls[1]!.response).toContain("sales@act.nc");
    expect(r.reference).toContain("Postal Code: 98800");
    expect(r.query).toMatch(/^Can you retrieve the contact details/);
    expect(loadRecords(`${CORPUS}/toolbench/answer`, { validatedOnly: false })).toHaveLength(15);
  });

  it("loads derived_call_chains.json and StableToolBench converted predictions", () => {
    const chains = loadRecords(`${CORPUS}/derived_call_chains.json`);
    expect(chains.length).toBe(12);
    expect(chains.every((c) => c.calls.every((k) => k.tool !== "Finish"))).toBe(true);
    const conv = loadRecords(
      `${CORPUS}/stabletoolbench/data_example/model_predictions_converted/virtual_chatgpt_dfs/G1_instruction.json`,
    );
    expect(conv.length).toBeGreaterThan(0);
    expect(conv[0]!.calls.length).toBeGreaterThan(0);
  });

  it("mines the corpus into a workflow the analyser accepts", () => {
    const recs = loadRecords(`${CORPUS}/toolbench/answer`);
    const r = mineWorkflow(recs, { model: { provider: "openai", name: "gpt-4o-mini" } });
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const tools = new Set(tracesOf(recs).flat());
    const positions = r.workflow.nodes
      .filter((n) => n.type === "tool-call")
      .flatMap((n) => (n.config as { candidates: string[] }).candidates);
    expect(new Set(positions)).toEqual(tools);
  });

  it("splits 5:2:3 with a seed, reproducibly and without overlap", () => {
    const recs = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, query: "q", reference: "", calls: [] }));
    const a = splitRecords(recs, 7);
    expect([a.optimisation.length, a.validation.length, a.test.length]).toEqual([10, 4, 6]);
    const b = splitRecords(recs, 7);
    expect(b.optimisation.map((r) => r.id)).toEqual(a.optimisation.map((r) => r.id));
    const c = splitRecords(recs, 8);
    expect(c.optimisation.map((r) => r.id)).not.toEqual(a.optimisation.map((r) => r.id));
    const ids = [...a.optimisation, ...a.validation, ...a.test].map((r) => r.id);
    expect(new Set(ids).size).toBe(20);
    const small = splitRecords(recs.slice(0, 3), 1);
    expect([small.optimisation.length, small.validation.length, small.test.length]).toEqual([1, 1, 1]);
    expect(() => splitRecords(recs, 1, [0, 0, 0])).toThrow(MineError);
  });
});
