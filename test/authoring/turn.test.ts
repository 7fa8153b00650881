import { describe, expect, it } from "vitest";
import { Editing } from "../../src/authoring/editing.js";
import { EditingError } from "../../src/authoring/errors.js";
import { rejectedOutcome } from "../../src/authoring/outcome.js";
import type { Author } from "../../src/authoring/turn/author.js";
import { ChatTurn, type TurnEvent } from "../../src/authoring/turn/service.js";
import { MemoryAppStore } from "../../src/store/memory/apps.js";
import { buildWorkflow, tpl } from "../support/build.js";

const base = () =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      tpl("say", "hello"),
      { id: "end", type: "end", outputs: [] },
    ],
    edges: [
      ["start", "say"],
      ["say", "end"],
    ],
  });

const changed = () => {
  const wf = base();
  return { ...wf, nodes: wf.nodes.map((n) => (n.id === "say" ? { ...n, title: "Greet" } : n)) };
};

async function session() {
  const apps = new MemoryAppStore();
  const { app } = await apps.createApp({ name: "t", mode: "workflow" }, base(), "create");
  return { apps, app, editing: new Editing(apps) };
}

describe("a chat turn", () => {
  it("proposes the author's change, remembers the outcome, and gives later turns that memory", async () => {
    const { apps, app, editing } = await session();
    const seen: TurnEvent[] = [];
    const turn = await ChatTurn.open(editing, app.id, "rename the greeting");
    expect(turn.request.history).toEqual([]);
    const author: Author = async () => ({ reply: "Renamed it.", workflow: changed() });
    const res = await turn.run(author, { source: "test", onEvent: (e) => seen.push(e) });
    expect(res).toMatchObject({ reply: "Renamed it.", updated: true, notApplied: false });
    expect(res.outcome).toMatchObject({ kind: "proposed", proposalId: res.proposal?.id, errors: 0 });
    expect(seen.map((e) => e.type)).toEqual(["proposal"]);
    expect((await apps.proposals(app.id, "pending")).map((p) => p.id)).toEqual([res.proposal?.id]);

    const next = await ChatTurn.open(editing, app.id, "undo that");
    expect(next.superseded).toEqual([res.proposal?.id]);
    expect(next.request.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(next.request.history[1]?.content).toContain("[outcome: Proposed");
  });

  it("applies the proposal to the draft when asked", async () => {
    const { app, editing } = await session();
    const turn = await ChatTurn.open(editing, app.id, "rename");
    const seen: TurnEvent[] = [];
    const res = await turn.run(async () => ({ reply: "", workflow: changed() }), {
      source: "test",
      apply: true,
      onEvent: (e) => seen.push(e),
    });
    expect(res.outcome).toMatchObject({ kind: "applied", revision: res.revision });
    expect(res.revision).toBe(turn.request.base.revision + 1);
    expect(seen.map((e) => e.type)).toEqual(["proposal", "applied"]);
  });

  it("remembers a turn with nothing to propose, and proposes nothing", async () => {
    const { apps, app, editing } = await session();
    const turn = await ChatTurn.open(editing, app.id, "break it");
    const outcome = rejectedOutcome([{ code: "graph.cycle", severity: "error", message: "a cycle" }]);
    const res = await turn.run(async () => ({ reply: "Done.", outcome, notApplied: true }), { source: "test" });
    expect(res).toMatchObject({ updated: false, outcome, notApplied: true, revision: turn.request.base.revision });
    expect(await apps.proposals(app.id)).toEqual([]);
    expect((await apps.messages(app.id)).at(-1)).toMatchObject({ role: "assistant", text: "Done.", outcome });
  });

  it("refuses with coded errors, not HTTP ones", async () => {
    const { app, editing } = await session();
    await expect(editing.undo(app.id)).rejects.toSatisfy((e) => e instanceof EditingError && e.code === "undo.nothing");
    await expect(editing.draft("nope")).rejects.toSatisfy(
      (e) => e instanceof EditingError && e.code === "app.not_found",
    );
  });
});
