import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffWorkflows, formatDiff } from "../../src/agent/diff.js";
import { SessionStore } from "../../src/agent/session.js";
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
  it("persist turns and versions across reopenings, and a failed turn keeps the previous version current", () => {
    const db = join(mkdtempSync(join(tmpdir(), "weft-sess-")), "s.db");
    const a = new SessionStore(db);
    const id = a.create({ name: "demo" });
    a.addTurn(id, { instruction: "echo x", answer: "<workflow>…</workflow>", passed: true, workflow: v1 });
    a.close();
    const b = new SessionStore(db);
    expect(b.current(id)).toEqual(v1);
    b.addTurn(id, { instruction: "broken", answer: "no tags", passed: false });
    expect(b.current(id)).toEqual(v1);
    b.addTurn(id, { instruction: "add a suffix", answer: "<workflow>…</workflow>", passed: true, workflow: v2 });
    expect(b.current(id)).toEqual(v2);
    expect(b.turns(id).map((t) => t.index)).toEqual([1, 2, 3]);
    expect(b.history(id).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(() => b.addTurn("nope", { instruction: "x", answer: "", passed: false })).toThrow(/no chat session/);
    b.close();
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
