/**
 * AI proposals apply to the draft (issue 29): a proposal is made against the draft's content, applying it writes
 * the draft (next revision) and makes no version, so `/v1` keeps running the published version until a publish;
 * a stale apply is refused with `draft.stale`; undo restores the draft as it was before the apply; restoring a
 * version makes it the draft.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDify } from "../../src/dsl/dify/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { startTestServer, type TestServer } from "./helpers.js";

/** Start "begin" → template "say" → End; the output tells which workflow ran. */
const saying = (words: string): Workflow => ({
  ...buildWorkflow({
    nodes: [
      {
        id: "begin",
        type: "start",
        variables: [{ variable: "who", label: "Who", type: "text-input", required: true }],
      },
      tpl("say", `${words} {{ who }}`, { who: ["begin", "who"] }),
      {
        id: "end",
        type: "end",
        outputs: [{ variable: "said", value_selector: ["say", "output"], value_type: "string" }],
      },
    ],
    edges: [
      ["begin", "say"],
      ["say", "end"],
    ],
  }),
  name: "greeter",
});
const withWords = (wf: Workflow, words: string): Workflow => {
  const out = structuredClone(wf);
  (out.nodes.find((n) => n.id === "say")!.config as { template: string }).template = `${words} {{ who }}`;
  return out;
};

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.stop());

async function json(res: Response, status: number): Promise<any> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** An app whose version 1 ("Hello") is published. */
async function publishedApp(): Promise<string> {
  const res = await s.api("/api/apps/import", {
    method: "POST",
    body: exportDify(saying("Hello")),
    headers: { "content-type": "text/yaml" },
  });
  const id = (await json(res, 201)).app.id as string;
  expect((await json(await s.api(`/api/apps/${id}`), 200)).app.publishedVersion).toBe(1);
  return id;
}

async function v1Said(appId: string): Promise<string> {
  const { key } = await s.deps.stores.service.createAppKey(appId);
  const res = await fetch(`${s.url}/v1/workflows/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ inputs: { who: "Ada" }, response_mode: "blocking", user: "u1" }),
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data.outputs.said;
}

const draftOf = async (id: string) => json(await s.api(`/api/apps/${id}/draft`), 200);
const versionsOf = async (id: string) =>
  (await json(await s.api(`/api/apps/${id}/versions`), 200)).versions.map((v: any) => v.version);
const propose = async (id: string, wf: Workflow) =>
  json(await s.api(`/api/apps/${id}/proposals`, { method: "POST", json: { workflow: wf } }), 201);

describe("proposals apply to the draft", () => {
  it("is made against the draft's content (unsaved-as-version edits included), applied to the draft; /v1 runs the published version until a publish", async () => {
    const id = await publishedApp();
    // An autosaved edit that is not a version: the proposal must be made from it, not from version 1.
    const d1 = await draftOf(id);
    const edited = withWords(d1.workflow, "Hi");
    const saved = await json(
      await s.api(`/api/apps/${id}/draft`, { method: "PUT", json: { workflow: edited, revision: d1.revision } }),
      200,
    );

    const proposed = structuredClone(edited);
    proposed.nodes.find((n) => n.id === "say")!.title = "Greet";
    const p = await propose(id, proposed);
    expect(p).toMatchObject({ status: "pending", baseRevision: saved.revision, canApply: true, stale: false });
    // The diff is against the draft: only the title, not the autosaved words.
    expect(p.diff.nodes.changed.map((c: any) => c.changes.map((x: any) => x.field))).toEqual([["title"]]);

    const applied = await json(await s.api(`/api/apps/${id}/proposals/${p.id}/apply`, { method: "POST" }), 200);
    expect(applied.draft).toMatchObject({ revision: saved.revision + 1, baseVersion: 1, dirty: true });
    expect(applied.proposal).toMatchObject({ status: "applied", appliedRevision: saved.revision + 1 });
    const after = await draftOf(id);
    expect(after.workflow).toEqual(proposed);
    expect(after.diagnostics.filter((d: any) => d.severity === "error")).toEqual([]);
    expect(await versionsOf(id)).toEqual([1]);
    expect(await v1Said(id)).toBe("Hello Ada");

    const pub = await json(await s.api(`/api/apps/${id}/publish`, { method: "POST", json: {} }), 200);
    expect(pub).toMatchObject({ published: 2, created: true });
    expect(await v1Said(id)).toBe("Hi Ada");
  });

  it("a proposal whose base moved on is stale: applying it is refused with draft.stale and nothing changes", async () => {
    const id = await publishedApp();
    const d1 = await draftOf(id);
    const p = await propose(id, withWords(d1.workflow, "Proposed"));
    // Another editor autosaves meanwhile.
    await json(
      await s.api(`/api/apps/${id}/draft`, {
        method: "PUT",
        json: { workflow: withWords(d1.workflow, "Mine"), revision: d1.revision },
      }),
      200,
    );
    expect((await json(await s.api(`/api/apps/${id}/proposals/${p.id}`), 200)).stale).toBe(true);
    const refused = await json(await s.api(`/api/apps/${id}/proposals/${p.id}/apply`, { method: "POST" }), 409);
    expect(refused.error.code).toBe("draft.stale");
    expect(refused.error.message).toMatch(/nothing changed/);
    const now = await draftOf(id);
    expect(now.revision).toBe(d1.revision + 1);
    expect(now.workflow.nodes.find((n: any) => n.id === "say").config.template).toBe("Mine {{ who }}");
    expect((await json(await s.api(`/api/apps/${id}/proposals/${p.id}`), 200)).status).toBe("pending");

    // A save that changes nothing does not make a fresh proposal stale.
    const cur = await draftOf(id);
    const q = await propose(id, withWords(cur.workflow, "Again"));
    await json(
      await s.api(`/api/apps/${id}/draft`, { method: "PUT", json: { workflow: cur.workflow, revision: cur.revision } }),
      200,
    );
    expect((await json(await s.api(`/api/apps/${id}/proposals/${q.id}`), 200)).stale).toBe(false);
    await json(await s.api(`/api/apps/${id}/proposals/${q.id}/apply`, { method: "POST" }), 200);
  });

  it("undo restores the draft as it was before each apply, walking back; never over a later edit", async () => {
    const id = await publishedApp();
    const d0 = await draftOf(id);
    const p1 = await propose(id, withWords(d0.workflow, "One"));
    await json(await s.api(`/api/apps/${id}/proposals/${p1.id}/apply`, { method: "POST" }), 200);
    const d1 = await draftOf(id);
    const p2 = await propose(id, withWords(d1.workflow, "Two"));
    await json(await s.api(`/api/apps/${id}/proposals/${p2.id}/apply`, { method: "POST" }), 200);

    const u2 = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 200);
    expect(u2.undone).toMatchObject({ id: p2.id, status: "applied" });
    expect(u2.undone.undoneAt).toBeGreaterThan(0);
    expect(u2.draft.workflow).toEqual(d1.workflow);
    const u1 = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 200);
    expect(u1.undone.id).toBe(p1.id);
    expect(u1.draft.workflow).toEqual(d0.workflow);
    expect(u1.draft.dirty).toBe(false);
    const none = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 409);
    expect(none.error.code).toBe("undo.nothing");
    expect(await versionsOf(id)).toEqual([1]);

    // An edit after the apply is never thrown away by an undo.
    const p3 = await propose(id, withWords(d0.workflow, "Three"));
    const a3 = await json(await s.api(`/api/apps/${id}/proposals/${p3.id}/apply`, { method: "POST" }), 200);
    const mine = withWords(a3.draft.workflow, "Mine");
    await json(
      await s.api(`/api/apps/${id}/draft`, { method: "PUT", json: { workflow: mine, revision: a3.draft.revision } }),
      200,
    );
    const refused = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 409);
    expect(refused.error.code).toBe("undo.stale");
    expect((await draftOf(id)).workflow).toEqual(mine);
  });

  it("a save that changes nothing keeps the last AI change undoable (GET /undo says so, POST /undo does it); an edit does not", async () => {
    const id = await publishedApp();
    const d0 = await draftOf(id);
    const p = await propose(id, withWords(d0.workflow, "AI"));
    const a = await json(await s.api(`/api/apps/${id}/proposals/${p.id}/apply`, { method: "POST" }), 200);
    expect(await json(await s.api(`/api/apps/${id}/undo`), 200)).toMatchObject({
      available: true,
      revision: a.draft.revision,
      proposal: { id: p.id },
    });
    // The studio's autosave of the same content, with its keys in another order: a new revision, the same draft.
    const reordered = Object.fromEntries(Object.entries(a.draft.workflow).reverse()) as any;
    reordered.nodes = a.draft.workflow.nodes.map((n: any) => Object.fromEntries(Object.entries(n).reverse()));
    const noop = await json(
      await s.api(`/api/apps/${id}/draft`, {
        method: "PUT",
        json: { workflow: reordered, revision: a.draft.revision },
      }),
      200,
    );
    expect(noop.revision).toBe(a.draft.revision + 1);
    expect(await json(await s.api(`/api/apps/${id}/undo`), 200)).toMatchObject({
      available: true,
      revision: noop.revision,
      proposal: { id: p.id },
    });
    const u = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 200);
    expect(u.draft.workflow).toEqual(d0.workflow);
    expect(await json(await s.api(`/api/apps/${id}/undo`), 200)).toMatchObject({
      available: false,
      reason: "undo.nothing",
    });

    const q = await propose(id, withWords(u.draft.workflow, "AI again"));
    const b = await json(await s.api(`/api/apps/${id}/proposals/${q.id}/apply`, { method: "POST" }), 200);
    await json(
      await s.api(`/api/apps/${id}/draft`, {
        method: "PUT",
        json: { workflow: withWords(b.draft.workflow, "Mine"), revision: b.draft.revision },
      }),
      200,
    );
    expect(await json(await s.api(`/api/apps/${id}/undo`), 200)).toMatchObject({
      available: false,
      reason: "undo.stale",
      proposal: { id: q.id },
    });
  });

  it("moving nodes after an AI change (the studio placing what it added, autosaved) keeps it undoable; undo keeps the layout of the nodes that stay", async () => {
    const id = await publishedApp();
    const d0 = await draftOf(id);
    const proposed = structuredClone(d0.workflow);
    proposed.nodes.find((n: any) => n.id === "say")!.title = "Greet";
    proposed.nodes.push({
      id: "note",
      type: "template-transform",
      title: "Added",
      config: { template: "x", variables: [] },
    });
    proposed.edges.push({ source: "say", sourcePort: "source", target: "note" });
    const p = await propose(id, proposed);
    const a = await json(await s.api(`/api/apps/${id}/proposals/${p.id}/apply`, { method: "POST" }), 200);
    // The studio gives every unplaced node a position and autosaves: only layout changed.
    const placed = structuredClone(a.draft.workflow);
    placed.nodes.forEach((n: any, i: number) => {
      n.canvas = { ...(n.canvas ?? {}), position: { x: 100 * i, y: 7 } };
    });
    placed.edges.forEach((e: any) => {
      e.canvas = { type: "custom" };
    });
    placed.meta = { ...(placed.meta ?? {}), viewport: { x: 1, y: 2, zoom: 0.5 } };
    const saved = await json(
      await s.api(`/api/apps/${id}/draft`, { method: "PUT", json: { workflow: placed, revision: a.draft.revision } }),
      200,
    );
    expect(await json(await s.api(`/api/apps/${id}/undo`), 200)).toMatchObject({
      available: true,
      revision: saved.revision,
      proposal: { id: p.id },
    });
    const u = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 200);
    expect(u.undone.id).toBe(p.id);
    // The content is the draft before the AI change; the nodes that stay keep where they were placed.
    const back = u.draft.workflow;
    expect(back.nodes.map((n: any) => n.id)).toEqual(d0.workflow.nodes.map((n: any) => n.id));
    expect(back.nodes.find((n: any) => n.id === "say").title).not.toBe("Greet");
    const at = (wf: any, nid: string) => wf.nodes.find((n: any) => n.id === nid).canvas?.position;
    for (const n of d0.workflow.nodes) expect(at(back, n.id)).toEqual(at(placed, n.id));
    expect(back.meta.viewport).toEqual({ x: 1, y: 2, zoom: 0.5 });

    // A content edit after the apply still blocks the undo.
    const q = await propose(id, withWords(back, "AI"));
    const b = await json(await s.api(`/api/apps/${id}/proposals/${q.id}/apply`, { method: "POST" }), 200);
    await json(
      await s.api(`/api/apps/${id}/draft`, {
        method: "PUT",
        json: { workflow: withWords(b.draft.workflow, "Mine"), revision: b.draft.revision },
      }),
      200,
    );
    expect(await json(await s.api(`/api/apps/${id}/undo`), 200)).toMatchObject({
      available: false,
      reason: "undo.stale",
    });
  });

  it("a proposal stored before drafts applies when the draft still holds its base version, and is refused with proposal.before_drafts when not", async () => {
    const legacy = (appId: string, words: string, wf: Workflow) =>
      s.deps.apps.createProposal({
        appId,
        baseVersion: 1,
        source: "agent",
        instruction: "before drafts",
        workflow: withWords(wf, words),
        diff: {
          nodes: { added: [], removed: [], changed: [{ id: "say", changes: [] }] },
          edges: { added: [], removed: [] },
          meta: [],
          empty: false,
        } as any,
        diagnostics: [],
        newErrors: [],
        summary: "old",
      });
    // The draft still equals version 1: the old proposal is not stale and applies; undo puts version 1 back.
    const id = await publishedApp();
    const d0 = await draftOf(id);
    const old = await legacy(id, "Old", d0.workflow);
    expect(await json(await s.api(`/api/apps/${id}/proposals/${old.id}`), 200)).toMatchObject({
      stale: false,
      canApply: true,
    });
    const listed = (await json(await s.api(`/api/apps/${id}/proposals?status=pending`), 200)).proposals;
    expect(listed).toMatchObject([{ id: old.id, stale: false }]);
    const a = await json(await s.api(`/api/apps/${id}/proposals/${old.id}/apply`, { method: "POST" }), 200);
    expect(a.draft.workflow.nodes.find((n: any) => n.id === "say").config.template).toBe("Old {{ who }}");
    const u = await json(await s.api(`/api/apps/${id}/undo`, { method: "POST" }), 200);
    expect(u.draft.workflow).toEqual(d0.workflow);

    // The draft moved on from version 1: refused, typed, saying why and what to do; nothing changes.
    const id2 = await publishedApp();
    const e0 = await draftOf(id2);
    const moved = await json(
      await s.api(`/api/apps/${id2}/draft`, {
        method: "PUT",
        json: { workflow: withWords(e0.workflow, "Mine"), revision: e0.revision },
      }),
      200,
    );
    const old2 = await legacy(id2, "Old", e0.workflow);
    expect(await json(await s.api(`/api/apps/${id2}/proposals/${old2.id}`), 200)).toMatchObject({
      stale: true,
      canApply: false,
    });
    const refused = await json(await s.api(`/api/apps/${id2}/proposals/${old2.id}/apply`, { method: "POST" }), 409);
    expect(refused.error.code).toBe("proposal.before_drafts");
    expect(refused.error.message).toMatch(/before drafts existed/);
    expect(refused.error.message).toMatch(/nothing changed/);
    expect(refused.error.message).toMatch(/Ask again/);
    const after = await draftOf(id2);
    expect(after.revision).toBe(moved.revision);
    expect(after.workflow).toEqual(moved.workflow);
    expect((await json(await s.api(`/api/apps/${id2}/proposals/${old2.id}`), 200)).status).toBe("pending");
  });

  it("restoring an old version makes it the draft (no new version); publishing it unchanged republishes it", async () => {
    const id = await publishedApp();
    const d = await draftOf(id);
    await json(
      await s.api(`/api/apps/${id}/draft`, {
        method: "PUT",
        json: { workflow: withWords(d.workflow, "Later"), revision: d.revision },
      }),
      200,
    );
    await json(await s.api(`/api/apps/${id}/publish`, { method: "POST", json: {} }), 200);
    expect(await v1Said(id)).toBe("Later Ada");
    const restored = await json(await s.api(`/api/apps/${id}/versions/1/restore`, { method: "POST" }), 200);
    expect(restored).toMatchObject({ restored: 1, draft: { baseVersion: 1, dirty: false } });
    expect((await draftOf(id)).workflow).toEqual(d.workflow);
    expect(await versionsOf(id)).toEqual([1, 2]);
    expect(await v1Said(id)).toBe("Later Ada");
    const pub = await json(await s.api(`/api/apps/${id}/publish`, { method: "POST", json: {} }), 200);
    expect(pub).toMatchObject({ published: 1, created: false });
    expect(await v1Said(id)).toBe("Hello Ada");
    const missing = await json(await s.api(`/api/apps/${id}/versions/9/restore`, { method: "POST" }), 404);
    expect(missing.error.code).toBe("version.not_found");
  });
});
