import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffWorkflows, formatDiff } from "../../src/agent/diff.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow, tpl } from "../support/build.js";

const v1 = buildWorkflow({
  nodes: [{ id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] }, tpl("t", "{{ x }}", { x: ["start", "x"] }), { id: "end", type: "end", outputs: [{ variable: "o", value_selector: ["t", "output"] }] }],
  edges: [["start", "t"], ["t", "end"]],
});
const v2 = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
    tpl("t", "<{{ x }}>", { x: ["start", "x"] }),
    tpl("u", "{{ y }}!", { y: ["t", "output"] }),
    { id: "end", type: "end", outputs: [{ variable: "o", value_selector: ["u", "output"] }] },
  ],
  edges: [["start", "t"], ["t", "u"], ["u", "end"]],
});

describe("chat sessions", () => {
  it("persist turns and versions across reopenings, and a failed turn keeps the previous version current", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "weft-sess-")), "s.db");
    const first = await openStores(db);
    const a = first.sessions;
    const id = await a.create({ name: "demo" });
    await a.addTurn(id, { instruction: "echo x", answer: "<workflow>…</workflow>", passed: true, workflow: v1 });
    await first.close();
    const second = await openStores(db);
    const b = second.sessions;
    expect(await b.current(id)).toEqual(v1);
    await b.addTurn(id, { instruction: "broken", answer: "no tags", passed: false });
    expect(await b.current(id)).toEqual(v1);
    await b.addTurn(id, { instruction: "add a suffix", answer: "<workflow>…</workflow>", passed: true, workflow: v2 });
    expect(await b.current(id)).toEqual(v2);
    expect((await b.turns(id)).map((t) => t.index)).toEqual([1, 2, 3]);
    expect((await b.history(id)).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    await expect(b.addTurn("nope", { instruction: "x", answer: "", passed: false })).rejects.toThrow(/no chat session/);
    await second.close();
  });

  it("diffs versions: nodes and edges added, removed and changed", () => {
    const d = diffWorkflows(v1, v2);
    expect(d).toEqual({
      nodesAdded: ["u"],
      nodesRemoved: [],
      nodesChanged: ["t", "end"],
      edgesAdded: ["t:source→u", "u:source→end"],
      edgesRemoved: ["t:source→end"],
    });
    expect(formatDiff(diffWorkflows(v2, v2))).toBe("no changes");
  });
});
