// Issue 13's Must-show for the reader: AI edits never lose work. A no-op edit of every corpus workflow (and
// the examples) gives back the workflow exactly; scripted edits — the model answers the <current_workflow>
// it was sent, changed as a script says, through the real LLM client against the replay server — each
// produce exactly the minimal diff, and every node and edge they do not touch stays as it was stored.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAnswer } from "../../src/authoring/answer.js";
import { viewOf } from "../../src/authoring/edit/read.js";
import { generateWorkflow } from "../../src/authoring/generate.js";
import type { CompactWorkflow } from "../../src/dsl/compact/project.js";
import { parseWorkflowText } from "../../src/dsl/load.js";
import { describeNode } from "../../src/ir/describe.js";
import type { WorkflowDiff } from "../../src/ir/diff.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { CORPUS_DIR, corpusFiles } from "../dsl/corpus.js";
import { replayLlm } from "../support/replay-llm.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");
const files = [...corpusFiles().map((f) => join(CORPUS_DIR, f)), join(EXAMPLES, "word-stats.yml")];
const load = (f: string): Workflow => parseWorkflowText(readFileSync(f, "utf8")).workflow;
const answer = (wf: unknown) =>
  `<node_selection>as shown</node_selection>\n<design_principle>Change only what was asked.</design_principle>\n<workflow>${JSON.stringify(wf)}</workflow>`;
const hasDuplicateIds = (wf: Workflow) => new Set(wf.nodes.map((n) => n.id)).size !== wf.nodes.length;

describe("a no-op AI edit", () => {
  it("leaves every corpus workflow and example identical: ids, titles, types, every config field, edges", () => {
    let identical = 0;
    const refused: string[] = [];
    for (const f of files) {
      const wf = load(f);
      const view = viewOf(wf);
      const r = readAnswer(answer(view.projection.compact), { current: wf, shown: view });
      if (hasDuplicateIds(wf)) {
        // A file that gives several nodes one id cannot be edited without guessing: refused, typed.
        expect(r.workflow, f).toBeUndefined();
        expect(
          r.problems.map((p) => p.code),
          f,
        ).toEqual(["edit.duplicate_ids"]);
        refused.push(f);
        continue;
      }
      expect(r.problems, f).toEqual([]);
      expect(isDeepStrictEqual(r.workflow, wf), f).toBe(true);
      expect(r.proposal?.diff.empty, f).toBe(true);
      identical++;
    }
    console.log(
      `no-op edits: ${identical} of ${files.length} workflows identical; ${refused.length} refused with edit.duplicate_ids`,
    );
    expect(identical + refused.length).toBe(files.length);
    expect(identical).toBeGreaterThanOrEqual(160);
  });
});

// ---- scripted edits ----------------------------------------------------------------------------

type Edge = [string, string, string]; // IR source, port, target
interface Expected {
  added?: number;
  removed?: string[];
  changed?: Record<string, string[]>;
  edgesAdded?: Edge[];
  edgesRemoved?: Edge[];
}

/** The minimal diff, and an independent check: what is not in it is stored exactly as before. */
function expectMinimal(base: Workflow, after: Workflow, diff: WorkflowDiff, want: Expected, label: string): string[] {
  const added = diff.nodes.added.map((n) => n.id);
  expect(added, label).toHaveLength(want.added ?? 0);
  expect(diff.nodes.removed.map((n) => n.id).sort(), label).toEqual([...(want.removed ?? [])].sort());
  expect(Object.fromEntries(diff.nodes.changed.map((c) => [c.id, c.changes.map((x) => x.field)])), label).toEqual(
    want.changed ?? {},
  );
  const key = (e: { source: string; sourcePort: string; target: string }) => `${e.source}|${e.sourcePort}|${e.target}`;
  const expand = (es: Edge[] | undefined) => (es ?? []).map(([s, p, t]) => `${s}|${p}|${t}`).sort();
  expect(diff.edges.added.map(key).sort(), label).toEqual(
    expand(want.edgesAdded)
      .map((k) => k.replace(/NEW(\d)/g, (_, i) => added[Number(i)]!))
      .sort(),
  );
  expect(diff.edges.removed.map(key).sort(), label).toEqual(
    expand(want.edgesRemoved)
      .map((k) => k.replace(/NEW(\d)/g, (_, i) => added[Number(i)]!))
      .sort(),
  );
  expect(diff.workflow, label).toEqual([]);
  const touched = new Set([...added, ...(want.removed ?? []), ...Object.keys(want.changed ?? {})]);
  const afterById = new Map(after.nodes.map((n) => [n.id, n]));
  for (const n of base.nodes)
    if (!touched.has(n.id)) expect(isDeepStrictEqual(afterById.get(n.id), n), `${label}: node ${n.id}`).toBe(true);
  const gone = new Set(diff.edges.removed.map(key));
  const afterEdges = new Map(after.edges.map((e) => [key(e), e]));
  for (const e of base.edges)
    if (!gone.has(key(e))) expect(isDeepStrictEqual(afterEdges.get(key(e)), e), `${label}: edge ${key(e)}`).toBe(true);
  for (const id of added)
    expect(
      base.nodes.some((n) => n.id === id),
      `${label}: ${id} is fresh`,
    ).toBe(false);
  return added;
}

/** A top-level edge X→Y from X's first port, where a node can be put in between. */
function insertionPoint(wf: Workflow): { x: string; port: string; y: string } | undefined {
  const byId = new Map(wf.nodes.map((n) => [n.id, n]));
  for (const e of wf.edges) {
    const x = byId.get(e.source);
    const y = byId.get(e.target);
    if (!x || !y || x.parentId !== undefined || y.parentId !== undefined) continue;
    if (describeNode(x, nodeCatalogue).ports[0] !== e.sourcePort) continue;
    return { x: x.id, port: e.sourcePort, y: y.id };
  }
  return undefined;
}

const NEW_TEMPLATE = { type: "template-transform", title: "Greeting", param: { variables: [], template: "Hello" } };
const NEW_BRANCH = {
  type: "if-else",
  title: "Has user?",
  param: { cases: [["and", [[["user_id", "sys"], "not empty"]]]] },
};

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => server.close());

const llm = () => replayLlm(server);

/** What the model was sent: the <current_workflow> of the last user message. */
function shownIn(req: RecordedRequest): CompactWorkflow {
  const users = (req.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "user");
  const m = /<current_workflow>\s*([\s\S]*?)\s*<\/current_workflow>/.exec(users.at(-1)!.content);
  return JSON.parse(m![1]!);
}

/** One chat turn whose model applies `script` to the compact workflow it was shown. */
async function turn(
  base: Workflow,
  instruction: string,
  script: (c: CompactWorkflow, cid: (irId: string) => string) => CompactWorkflow,
) {
  const view = viewOf(base);
  const cid = (id: string) => view.projection.toCompact.get(id)!;
  server.reset();
  server.enqueue((req) => {
    const shown = shownIn(req);
    expect(shown).toEqual(view.projection.compact);
    return reply.text(answer(script(structuredClone(shown), cid)));
  });
  const r = await generateWorkflow({
    llm: llm(),
    model: { provider: "weft", name: "editor" },
    instruction,
    current: base,
    maxAttempts: 1,
  });
  return r;
}

const without = (edges: CompactWorkflow["edges"], e: [string, number, string]) =>
  edges.filter((x) => !isDeepStrictEqual(x, e));

const eligible = files
  .map((f) => ({ f, wf: load(f) }))
  .filter(({ wf }) => !hasDuplicateIds(wf) && insertionPoint(wf) && wf.nodes.length >= 3);

describe("scripted edits over the replay model", () => {
  const counts = { title: 0, add: 0, branch: 0, rewire: 0, remove: 0 };
  afterAll(() => console.log(`scripted edits on ${eligible.length} corpus workflows, minimal diff each:`, counts));

  it("has at least 20 corpus workflows to edit", () => {
    expect(eligible.length).toBeGreaterThanOrEqual(20);
  });

  it.each(eligible.map((e) => [e.f.slice(CORPUS_DIR.length + 1) || e.f, e] as const))(
    "%s: change a title, add a node, add a branch, rewire an edge, remove a node",
    async (label, { wf }) => {
      const { x, port, y } = insertionPoint(wf)!;

      // Change one field: Y's title.
      const t1 = await turn(wf, "rename the node", (c, cid) => {
        c.nodes_info.find((n) => n.id === cid(y))!.title = "Renamed by the model";
        return c;
      });
      expect(t1.passed, `${label}: ${JSON.stringify(t1.attempts.at(-1)?.problems.slice(0, 3))}`).toBe(true);
      expectMinimal(wf, t1.workflow!, t1.proposal!.diff, { changed: { [y]: ["title"] } }, `${label} title`);
      counts.title++;

      // Add a node between X and Y.
      const t2 = await turn(wf, "add a greeting between them", (c, cid) => {
        c.nodes_info.push({ id: "g1", ...NEW_TEMPLATE });
        const portIndex = 0;
        c.edges = [...without(c.edges, [cid(x), portIndex, cid(y)]), [cid(x), portIndex, "g1"], ["g1", 0, cid(y)]];
        return c;
      });
      expect(t2.passed, `${label}: ${JSON.stringify(t2.attempts.at(-1)?.problems.slice(0, 3))}`).toBe(true);
      const [g] = expectMinimal(
        wf,
        t2.workflow!,
        t2.proposal!.diff,
        {
          added: 1,
          edgesRemoved: [[x, port, y]],
          edgesAdded: [
            [x, port, "NEW0"],
            ["NEW0", "source", y],
          ],
        },
        `${label} add`,
      );
      const greeting = t2.workflow!.nodes.find((n) => n.id === g)!;
      expect(greeting).toMatchObject({ type: "template-transform", title: "Greeting", config: { template: "Hello" } });
      counts.add++;

      // Add a branch: X → if-else; true → Y; false → a new template node → Y.
      const t3 = await turn(wf, "branch on whether there is a user", (c, cid) => {
        c.nodes_info.push({ id: "b1", ...NEW_BRANCH }, { id: "f1", ...NEW_TEMPLATE, title: "Fallback" });
        c.edges = [
          ...without(c.edges, [cid(x), 0, cid(y)]),
          [cid(x), 0, "b1"],
          ["b1", 0, cid(y)],
          ["b1", 1, "f1"],
          ["f1", 0, cid(y)],
        ];
        return c;
      });
      expect(t3.passed, `${label}: ${JSON.stringify(t3.attempts.at(-1)?.problems.slice(0, 3))}`).toBe(true);
      const branched = t3.workflow!;
      const b = branched.nodes.find((n) => n.title === "Has user?")!.id;
      const fb = branched.nodes.find((n) => n.title === "Fallback")!.id;
      const added3 = expectMinimal(
        wf,
        branched,
        t3.proposal!.diff,
        {
          added: 2,
          edgesRemoved: [[x, port, y]],
          edgesAdded: [
            [x, port, b],
            [b, "true", y],
            [b, "false", fb],
            [fb, "source", y],
          ],
        },
        `${label} branch`,
      );
      expect(added3.sort()).toEqual([b, fb].sort());
      counts.branch++;

      // Rewire an edge of the branched workflow: the true branch goes through the fallback too.
      const t4 = await turn(branched, "send the true branch through the fallback as well", (c, cid) => {
        c.edges = [...without(c.edges, [cid(b), 0, cid(y)]), [cid(b), 0, cid(fb)]];
        return c;
      });
      expect(t4.passed, `${label}: ${JSON.stringify(t4.attempts.at(-1)?.problems.slice(0, 3))}`).toBe(true);
      expectMinimal(
        branched,
        t4.workflow!,
        t4.proposal!.diff,
        { edgesRemoved: [[b, "true", y]], edgesAdded: [[b, "true", fb]] },
        `${label} rewire`,
      );
      counts.rewire++;

      // Remove a node of the branched workflow: the fallback goes, the false branch joins Y directly.
      const t5 = await turn(branched, "drop the fallback", (c, cid) => {
        c.nodes_info = c.nodes_info.filter((n) => n.id !== cid(fb));
        c.edges = [...c.edges.filter((e) => e[0] !== cid(fb) && e[2] !== cid(fb)), [cid(b), 1, cid(y)]];
        return c;
      });
      expect(t5.passed, `${label}: ${JSON.stringify(t5.attempts.at(-1)?.problems.slice(0, 3))}`).toBe(true);
      expectMinimal(
        branched,
        t5.workflow!,
        t5.proposal!.diff,
        {
          removed: [fb],
          edgesRemoved: [
            [b, "false", fb],
            [fb, "source", y],
          ],
          edgesAdded: [[b, "false", y]],
        },
        `${label} remove`,
      );
      counts.remove++;
    },
    60_000,
  );
});
