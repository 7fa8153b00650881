// Issue 13 over HTTP: an agent chat turn on an imported real Dify app yields a proposal and changes nothing;
// reject keeps the app as it was; apply writes exactly the proposed diff into the draft (issue 29: no new
// version); undo restores the original draft; a
// rejected update reports its diagnostics and "Nothing changed", and the agent remembers each outcome.
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffWorkflows } from "../../src/ir/diff.js";
import { parseLlmConfig } from "../../src/llm/index.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { corpusFile, readSse, startTestServer, type TestServer } from "./helpers.js";

const APP = "svcvit__Awesome-Dify-Workflow/DSL/SEO Slug Generator.yml";

let llm: ReplayServer;
let s: TestServer;
beforeAll(async () => {
  llm = await startReplayServer();
  s = await startTestServer({
    llmConfig: parseLlmConfig({
      endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "house-model" } },
      default: "ep",
      retry: { maxRetries: 0 },
    }),
  });
});
afterAll(async () => {
  await s.stop();
  await llm.close();
});

/** The compact workflow the agent got from its last get_current_workflow call. */
function shownTo(req: RecordedRequest): { nodes_info: any[]; edges: any[] } {
  const tool = (req.body.messages as any[]).filter((m) => m.role === "tool").at(-1);
  return JSON.parse(tool.content).workflow;
}

/** The agent: look at the workflow, then propose `edit` of it, then say `words`. */
function scriptAgent(edit: (c: { nodes_info: any[]; edges: any[] }) => unknown, words: string) {
  llm.enqueue(
    reply.toolCall("get_current_workflow", {}),
    (req) => reply.toolCall("update_workflow", { workflow: edit(structuredClone(shownTo(req))) }),
    reply.text(words),
  );
}

/** Add an LLM node after the start node, feeding what the start node fed. */
const addLlm = (c: { nodes_info: any[]; edges: any[] }) => {
  const start = c.nodes_info.find((n) => n.type === "start");
  const out = c.edges.find((e) => e[0] === start.id);
  c.nodes_info.push({
    id: "polish",
    type: "llm",
    title: "Polish",
    param: { system: "Polish the text.", user: "hello" },
  });
  c.edges = [...c.edges.filter((e) => e !== out), [start.id, 0, "polish"], ["polish", 0, out[2]]];
  return c;
};

const json = async (path: string, init?: Parameters<TestServer["api"]>[1]) =>
  (await (await s.api(path, init)).json()) as any;

describe("AI edits as proposals over the API", () => {
  it("propose → reject (nothing changed) → propose → apply (exactly the diff) → undo (the original)", async () => {
    const imported = await json("/api/apps/import", { method: "POST", body: readFileSync(corpusFile(APP), "utf8") });
    const id = imported.app.id;
    const original = (await json(`/api/apps/${id}/workflow`)).workflow;

    scriptAgent(addLlm, "I added a Polish step.");
    const ev1 = await readSse(
      await s.api(`/api/apps/${id}/chat`, { method: "POST", json: { message: "add an LLM that polishes the text" } }),
    );
    const proposal = ev1.find((e) => e.data.type === "proposal")!.data.proposal;
    expect(proposal).toMatchObject({
      status: "pending",
      baseVersion: 1,
      baseRevision: 1,
      canApply: true,
      stale: false,
    });
    expect(proposal.diff.nodes.added.map((n: any) => [n.type, n.title])).toEqual([["llm", "Polish"]]);
    expect(proposal.diff.nodes.removed).toEqual([]);
    expect(proposal.diff.nodes.changed).toEqual([]);
    expect(proposal.diff.edges.added).toHaveLength(2);
    expect(proposal.diff.edges.removed).toHaveLength(1);
    expect(proposal.summary).toMatch(/Added .*Polish/);
    // The new node runs on the configured model, not a default someone hard-coded.
    expect(proposal.diff.nodes.added[0].node.config.model).toMatchObject({ name: "house-model" });
    expect(ev1.at(-1)!.data).toMatchObject({
      type: "done",
      updated: true,
      notApplied: false,
      version: 1,
      revision: 1,
      outcome: { kind: "proposed" },
    });
    expect((await json(`/api/apps/${id}/workflow`)).version).toBe(1);
    expect((await json(`/api/apps/${id}/proposals?status=pending`)).proposals.map((p: any) => p.id)).toEqual([
      proposal.id,
    ]);

    const rejected = await json(`/api/apps/${id}/proposals/${proposal.id}/reject`, { method: "POST" });
    expect(rejected).toMatchObject({ proposal: { status: "rejected" }, revision: 1, note: "Nothing changed." });
    const after = await json(`/api/apps/${id}/workflow`);
    expect(after.version).toBe(1);
    expect(after.workflow).toEqual(original);
    expect((await s.api(`/api/apps/${id}/proposals/${proposal.id}/apply`, { method: "POST" })).status).toBe(409);

    scriptAgent(addLlm, "Added it again.");
    const ev2 = await readSse(
      await s.api(`/api/apps/${id}/chat`, { method: "POST", json: { message: "add it after all" } }),
    );
    const p2 = ev2.find((e) => e.data.type === "proposal")!.data.proposal;
    const applied = await s.api(`/api/apps/${id}/proposals/${p2.id}/apply`, { method: "POST" });
    expect(applied.status).toBe(200);
    expect(((await applied.json()) as any).draft).toMatchObject({ revision: 2, baseVersion: 1, dirty: true });
    // The draft changed; the version (what /v1 runs) did not.
    expect((await json(`/api/apps/${id}/workflow`)).workflow).toEqual(original);
    const v2 = await json(`/api/apps/${id}/draft`);
    const stored = diffWorkflows(original, v2.workflow);
    expect(stored.nodesAdded).toEqual(p2.diff.nodesAdded);
    expect(stored.edgesAdded.sort()).toEqual([...p2.diff.edgesAdded].sort());
    expect(stored.edgesRemoved).toEqual(p2.diff.edgesRemoved);
    expect(stored.nodesChanged).toEqual([]);
    for (const n of original.nodes)
      expect(
        isDeepStrictEqual(
          v2.workflow.nodes.find((x: any) => x.id === n.id),
          n,
        ),
      ).toBe(true);

    const undo = await s.api(`/api/apps/${id}/undo`, { method: "POST" });
    expect(undo.status).toBe(200);
    expect((await undo.json()) as any).toMatchObject({ draft: { revision: 3, dirty: false }, undone: { id: p2.id } });
    expect((await json(`/api/apps/${id}/draft`)).workflow).toEqual(original);
    expect((await json(`/api/apps/${id}/versions`)).versions.map((v: any) => v.source)).toEqual(["import"]);
  });

  it("a rejected update: diagnostics, 'Nothing changed', the success claim marked not applied, remembered next turn", async () => {
    const imported = await json("/api/apps/import", { method: "POST", body: readFileSync(corpusFile(APP), "utf8") });
    const id = imported.app.id;
    const original = (await json(`/api/apps/${id}/workflow`)).workflow;
    const dangling = (c: { nodes_info: any[]; edges: any[] }) => {
      const end = c.nodes_info.find((n) => n.type === "end");
      end.param = { outputs: [["slug", ["nothing_here", end.id]]] };
      return c;
    };
    scriptAgent(dangling, "Done: the end node now outputs the slug.");
    const events = await readSse(
      await s.api(`/api/apps/${id}/chat`, { method: "POST", json: { message: "output the slug" } }),
    );
    const update = events.find((e) => e.data.type === "tool_result" && e.data.tool === "update_workflow")!.data;
    expect(update.ok).toBe(false);
    expect(events.some((e) => e.data.type === "proposal")).toBe(false);
    const done = events.at(-1)!.data;
    expect(done).toMatchObject({
      type: "done",
      updated: false,
      notApplied: true,
      version: 1,
      revision: 1,
      proposal: null,
      outcome: { kind: "rejected" },
    });
    expect(done.outcome.summary).toContain("Nothing changed.");
    expect(done.outcome.diagnostics.length).toBeGreaterThan(0);
    expect(done.outcome.diagnostics.every((d: any) => typeof d.code === "string" && d.severity === "error")).toBe(true);
    expect((await json(`/api/apps/${id}/workflow`)).workflow).toEqual(original);
    const msgs = (await json(`/api/apps/${id}/messages`)).messages;
    expect(msgs.map((m: any) => [m.role, m.outcome?.kind ?? null])).toEqual([
      ["user", null],
      ["assistant", "rejected"],
    ]);

    // The next turn: the agent is told what really happened.
    llm.enqueue(reply.text("Understood."));
    await readSse(await s.api(`/api/apps/${id}/chat`, { method: "POST", json: { message: "what happened?" } }));
    const memory = JSON.stringify(llm.requests.at(-1)!.body.messages);
    expect(memory).toContain("output the slug");
    expect(memory).toContain("rejected");
    expect(memory).toContain("Nothing changed");
  });

  it("a proposal made from an older version is stale and cannot be applied over the newer draft", async () => {
    const imported = await json("/api/apps/import", { method: "POST", body: readFileSync(corpusFile(APP), "utf8") });
    const id = imported.app.id;
    const cur = await json(`/api/apps/${id}/workflow`);
    const titled = structuredClone(cur.workflow);
    titled.nodes[0].title = "Renamed";
    const p = await s.api(`/api/apps/${id}/proposals`, { method: "POST", json: { workflow: titled } });
    expect(p.status).toBe(201);
    const pid = ((await p.json()) as any).id;
    // The user saves an edit of their own meanwhile.
    const own = structuredClone(cur.workflow);
    own.nodes[1].title = "Mine";
    expect((await s.api(`/api/apps/${id}/workflow`, { method: "PUT", json: { workflow: own } })).status).toBe(201);
    expect((await json(`/api/apps/${id}/proposals/${pid}`)).stale).toBe(true);
    const refused = await s.api(`/api/apps/${id}/proposals/${pid}/apply`, { method: "POST" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as any).error.code).toBe("draft.stale");
    expect((await json(`/api/apps/${id}/workflow`)).workflow.nodes[1].title).toBe("Mine");
    expect((await json(`/api/apps/${id}/draft`)).workflow.nodes[1].title).toBe("Mine");
  });

  it("an unreadable proposal body is a typed 422 naming the problems, and nothing is stored", async () => {
    const imported = await json("/api/apps/import", { method: "POST", body: readFileSync(corpusFile(APP), "utf8") });
    const id = imported.app.id;
    const res = await s.api(`/api/apps/${id}/proposals`, {
      method: "POST",
      json: { compact: { nodes_info: [{ id: 7 }], edges: "x" } },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("proposal.unreadable");
    expect(body.error.message).toContain("Nothing changed");
    expect((await json(`/api/apps/${id}/proposals`)).proposals).toEqual([]);
  });
});
