import { describe, expect, it } from "vitest";
import { closeStep, emptyHistory, HISTORY_LIMIT, recordEdit, redoStep, undoStep } from "../src/draft/history";
import type { Workflow } from "../src/types";

const wf = (name: string) => ({ weft: 1, name, mode: "workflow", nodes: [], edges: [] }) as unknown as Workflow;

describe("edit history", () => {
  it("undoes and redoes steps in order, and a new edit drops what could be redone", () => {
    const [a, b, c] = [wf("a"), wf("b"), wf("c")];
    let h = recordEdit(emptyHistory(), a);
    h = recordEdit(h, b);
    const u1 = undoStep(h, c)!;
    expect(u1.draft).toBe(b);
    const u2 = undoStep(u1.history, u1.draft)!;
    expect(u2.draft).toBe(a);
    expect(undoStep(u2.history, u2.draft)).toBeUndefined();
    const r1 = redoStep(u2.history, u2.draft)!;
    expect(r1.draft).toBe(b);
    const after = recordEdit(r1.history, r1.draft);
    expect(after.future).toEqual([]);
    expect(redoStep(after, wf("d"))).toBeUndefined();
  });

  it("edits of one open step join it until it is closed or another step begins", () => {
    const [a, b, c] = [wf("a"), wf("b"), wf("c")];
    let h = recordEdit(emptyHistory(), a, "drag:1");
    h = recordEdit(h, b, "drag:1");
    expect(h.past).toEqual([a]);
    h = recordEdit(h, c, "node:x:title");
    expect(h.past).toEqual([a, c]);
    h = recordEdit(closeStep(h), b, "node:x:title");
    expect(h.past).toEqual([a, c, b]);
    // An undo closes the step: typing again after it is a step of its own.
    const u = undoStep(h, wf("now"))!;
    expect(recordEdit(u.history, u.draft, "node:x:title").past).toHaveLength(3);
  });

  it("keeps the newest steps up to its limit", () => {
    let h = emptyHistory();
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) h = recordEdit(h, wf(String(i)));
    expect(h.past).toHaveLength(HISTORY_LIMIT);
    expect(h.past[0]!.name).toBe("5");
  });
});
