// The store contract, as one suite any backend runs: `describeStoreContract(name, target)` checks the run,
// app, conversation and knowledge stores of `target.open()`. Memory and SQLite run it now (contract.test.ts); a new backend
// (PostgreSQL) adds one call there.
import { describe, expect, it } from "vitest";
import type { WorkflowDiff } from "../../src/ir/diff.js";
import type { NewProposal } from "../../src/store/apps.js";
import type { FormRecord } from "../../src/store/forms.js";
import type { Stores } from "../../src/store/open.js";
import type { RunEvent } from "../../src/store/run-events.js";
import type { AttemptRecord, NodeCommit, RunRecord } from "../../src/store/runs.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { describeAppTests } from "./contract-app-tests.js";
import { describeAuditAndInvites } from "./contract-audit.js";
import { describeDeliveries } from "./contract-deliveries.js";
import { describeIdentities } from "./contract-identities.js";
import { describeKnowledge } from "./contract-knowledge.js";
import { describeSchedules } from "./contract-schedules.js";
import { describeTeams, describeTeamsSharing } from "./contract-teams.js";
import { type StoreTarget, withStores } from "./store-target.js";

export type { StoreTarget };

const wf = buildWorkflow({
  nodes: [{ id: "start", type: "start", variables: [] }, tpl("t", "x"), { id: "end", type: "end", outputs: [] }],
  edges: [
    ["start", "t"],
    ["t", "end"],
  ],
});

let seq = 0;
const run = (over: Partial<RunRecord> = {}): RunRecord => {
  const now = Date.now();
  return {
    id: `run-${++seq}`,
    workflow: wf,
    inputs: { q: "é ✓" },
    status: "running",
    createdAt: now,
    updatedAt: now,
    ...over,
  };
};
const commit = (key: string, outputs: Record<string, unknown>, over: Partial<NodeCommit> = {}): NodeCommit => ({
  key,
  nodeId: key.split("/").at(-1)!,
  status: "succeeded",
  outputs,
  port: "source",
  ...over,
});
const attempt = (runId: string, key: string, n: number, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  runId,
  key,
  nodeId: key.split("/").at(-1)!,
  nodeType: "template-transform",
  title: key,
  attempt: n,
  status: "succeeded",
  inputs: { "start.x": n },
  startedAt: 1000 + n,
  endedAt: 1010 + n,
  ...over,
});
const ev = (runId: string, nodeId: string): RunEvent => ({ type: "node_skipped", runId, key: nodeId, nodeId });

export function describeStoreContract(name: string, target: StoreTarget): void {
  describe(`store contract: ${name}`, () => {
    describeRuns(target);
    describeCommits(target);
    describeLeases(target);
    describeApps(target);
    describeDrafts(target);
    describeRunLog(target);
    describeEvents(target);
    describeProposals(target);
    describeForms(target);
    describeEnv(target);
    describeSchedules(target);
    describeDeliveries(target);
    describeTeams(target);
    describeIdentities(target);
    describeAuditAndInvites(target);
    describeAppTests(target);
    describeServiceApi(target);
    describeConversations(target);
    describeKnowledge(target);
    if (target.openAgain) describeSharing(target, target.openAgain.bind(target));
    if (target.openAgain)
      describeTeamsSharing({ open: target.open.bind(target), openAgain: target.openAgain.bind(target) });
  });
}

function describeRuns(target: StoreTarget): void {
  it("runs: create, get (copies, not live objects), update, list newest first with limit and app filter", () =>
    withStores(target, async ({ runs }) => {
      expect(await runs.getRun("nope")).toBeUndefined();
      const a = run({ appId: "app-1", createdAt: 10 });
      const b = run({ createdAt: 20 });
      const c = run({ appId: "app-1", createdAt: 30 });
      for (const r of [a, b, c]) await runs.createRun(r);
      const got = await runs.getRun(a.id);
      expect(got).toEqual(a);
      got!.inputs.q = "changed";
      expect((await runs.getRun(a.id))!.inputs.q).toBe("é ✓");

      await runs.updateRun(a.id, { status: "failed", error: { code: "x.y", message: "boom", nodeId: "t" } });
      const failed = (await runs.getRun(a.id))!;
      expect(failed).toMatchObject({
        status: "failed",
        error: { code: "x.y", message: "boom", nodeId: "t" },
        inputs: a.inputs,
      });
      expect(failed.updatedAt).toBeGreaterThanOrEqual(a.updatedAt);
      await runs.updateRun(a.id, { status: "succeeded", outputs: { n: 1 }, error: undefined });
      expect(await runs.getRun(a.id)).toMatchObject({ status: "succeeded", outputs: { n: 1 } });
      expect((await runs.getRun(a.id))!.error).toBeUndefined();

      expect((await runs.listRuns()).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
      expect((await runs.listRuns({ limit: 2 })).map((r) => r.id)).toEqual([c.id, b.id]);
      expect((await runs.listRuns({ appId: "app-1" })).map((r) => r.id)).toEqual([c.id, a.id]);
      expect(await runs.listRuns({ appId: "other" })).toEqual([]);
    }));

  it("attempts: every field kept, in append order, per run", () =>
    withStores(target, async ({ runs }) => {
      const r1 = run();
      const r2 = run();
      await runs.createRun(r1);
      await runs.createRun(r2);
      const recs = [
        attempt(r1.id, "t", 1, {
          status: "gate-rejected",
          outputs: { v: "bad" },
          error: { code: "gate.rejected", message: "no" },
        }),
        attempt(r2.id, "t", 1),
        attempt(r1.id, "t", 2, {
          outputs: { v: "ok" },
          port: "source",
          usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
          meta: { model: "m" },
        }),
        attempt(r1.id, "loop[0]/t", 1, { status: "failed", error: { code: "node.error", message: "x" } }),
      ];
      for (const a of recs) await runs.appendAttempt(a);
      expect(await runs.attempts(r1.id)).toEqual([recs[0], recs[2], recs[3]]);
      expect(await runs.attempts(r2.id)).toEqual([recs[1]]);
      expect(await runs.attempts("nope")).toEqual([]);
    }));
}

function describeCommits(target: StoreTarget): void {
  it("commits: the first commit of a key wins and adds one artifact version per output", () =>
    withStores(target, async ({ runs }) => {
      const r = run();
      await runs.createRun(r);
      const first = commit("t", { output: "one", n: 1 }, { writes: [{ selector: ["conversation", "c"], value: [1] }] });
      expect(await runs.commitNode(r.id, first)).toBe(first);
      const second = commit("t", { output: "two", n: 2 });
      const got = await runs.commitNode(r.id, second);
      expect(got).not.toBe(second);
      expect(got).toEqual(first);
      const all = await runs.committed(r.id);
      expect([...all.keys()]).toEqual(["t"]);
      expect(all.get("t")).toEqual(first);
      const arts = await runs.artifacts(r.id);
      expect(arts.map((a) => [a.nodeId, a.name, a.version, a.value, a.key])).toEqual([
        ["t", "output", 1, "one", "t"],
        ["t", "n", 1, 1, "t"],
      ]);
      expect(await runs.committed("nope")).toEqual(new Map());
    }));

  it("commits: the attempt given with a commit is traced with it, also when an earlier commit of the key won", () =>
    withStores(target, async ({ runs }) => {
      const r = run();
      await runs.createRun(r);
      const first = attempt(r.id, "t", 1, { outputs: { output: "one" }, port: "source" });
      const second = attempt(r.id, "t", 2, { outputs: { output: "two" }, port: "source" });
      await runs.appendAttempt(
        attempt(r.id, "u", 1, { status: "failed", error: { code: "node.error", message: "x" } }),
      );
      const won = commit("t", { output: "one" });
      expect(await runs.commitNode(r.id, won, first)).toBe(won);
      expect(await runs.commitNode(r.id, commit("t", { output: "two" }), second)).toEqual(won);
      const traced = await runs.attempts(r.id);
      expect(traced.map((x) => [x.key, x.attempt, x.status])).toEqual([
        ["u", 1, "failed"],
        ["t", 1, first.status],
        ["t", 2, second.status],
      ]);
      expect(traced[1]).toEqual(first);
    }));

  it("commits: of many concurrent commits of one key exactly one wins, and every caller gets the winner", () =>
    withStores(target, async ({ runs }) => {
      const r = run();
      await runs.createRun(r);
      const tries = Array.from({ length: 20 }, (_, i) => commit("t", { output: `try ${i}` }));
      const results = await Promise.all(tries.map((c) => runs.commitNode(r.id, c)));
      const winners = results.filter((res, i) => res === tries[i]);
      expect(winners).toHaveLength(1);
      for (const res of results) expect(res).toEqual(winners[0]);
      expect((await runs.committed(r.id)).get("t")).toEqual(winners[0]);
      expect(await runs.artifacts(r.id)).toHaveLength(1);
    }));

  it("commits: concurrent commits of different keys of one node (parallel iterations) get versions 1..n, none lost", () =>
    withStores(target, async ({ runs }) => {
      const r = run();
      await runs.createRun(r);
      const keys = Array.from({ length: 12 }, (_, i) => `iter[${i}]/t`);
      await Promise.all(keys.map((k, i) => runs.commitNode(r.id, commit(k, { output: `item ${i}` }, { nodeId: "t" }))));
      const arts = await runs.artifacts(r.id, "t");
      expect(arts.map((a) => a.version).sort((x, y) => x - y)).toEqual(keys.map((_, i) => i + 1));
      expect(new Set(arts.map((a) => a.key))).toEqual(new Set(keys));
      expect((await runs.committed(r.id)).size).toBe(12);
    }));

  it("text of any kind round-trips: NUL characters, emoji, quotes in inputs, outputs, names, messages and proposals", () =>
    withStores(target, async ({ runs, apps }) => {
      const odd = "a\u0000b ✓ 🧵 'quote' \"dq\" \\";
      const r = run({ inputs: { q: odd } });
      await runs.createRun(r);
      await runs.commitNode(r.id, commit("t", { output: odd }));
      expect((await runs.getRun(r.id))!.inputs.q).toBe(odd);
      expect((await runs.artifacts(r.id))[0]!.value).toBe(odd);
      const { app } = await apps.createApp(
        { name: odd, mode: "workflow", description: odd },
        { ...wf, name: odd },
        "create",
      );
      expect(await apps.getApp(app.id)).toMatchObject({ name: odd, description: odd });
      await apps.addMessage(app.id, "user", odd);
      expect((await apps.messages(app.id))[0]!.text).toBe(odd);
      const p = await apps.createProposal({ ...proposal(app.id, 1), instruction: odd, summary: odd, source: odd });
      expect(await apps.proposal(app.id, p.id)).toMatchObject({ instruction: odd, summary: odd, source: odd });
      await apps.addMessage(app.id, "assistant", odd, undefined, { outcome: { kind: "unchanged", summary: odd } });
      expect((await apps.messages(app.id))[1]!.outcome).toEqual({ kind: "unchanged", summary: odd });
    }));

  it("artifacts: versions count per run, node and output in commit order; values round-trip", () =>
    withStores(target, async ({ runs }) => {
      const r1 = run();
      const r2 = run();
      await runs.createRun(r1);
      await runs.createRun(r2);
      const nested = { a: [1, null, { b: "ü" }], t: true, z: 0 };
      await runs.commitNode(r1.id, commit("loop[0]/t", { output: "round 0", obj: nested }));
      await runs.commitNode(
        r1.id,
        commit("u", { output: "other node" }, { nodeId: "u", port: "false", status: "exception" }),
      );
      await runs.commitNode(r1.id, commit("loop[1]/t", { output: "round 1", obj: null }));
      await runs.commitNode(r2.id, commit("loop[0]/t", { output: "r2" }));
      const t = await runs.artifacts(r1.id, "t");
      expect(t.map((a) => [a.name, a.version, a.key, a.value])).toEqual([
        ["output", 1, "loop[0]/t", "round 0"],
        ["obj", 1, "loop[0]/t", nested],
        ["output", 2, "loop[1]/t", "round 1"],
        ["obj", 2, "loop[1]/t", null],
      ]);
      expect(t.every((a) => a.runId === r1.id && typeof a.createdAt === "number")).toBe(true);
      expect((await runs.artifacts(r1.id)).map((a) => a.nodeId)).toEqual(["t", "t", "u", "t", "t"]);
      expect((await runs.artifacts(r2.id)).map((a) => a.version)).toEqual([1]);
      const u = (await runs.committed(r1.id)).get("u");
      expect(u).toMatchObject({ status: "exception", port: "false", nodeId: "u" });
    }));
}

function describeLeases(target: StoreTarget): void {
  it("leases: created held, renewed and released by their owner only; another owner cannot take or fence a valid one", () =>
    withStores(target, async ({ runs }) => {
      const before = Date.now();
      const r = run();
      await runs.createRun(r, { owner: "a", ttlMs: 60_000 });
      const held = (await runs.getRun(r.id))!.lease!;
      expect(held.owner).toBe("a");
      // The store's clock (PostgreSQL's) may differ from this process's by a little, never by half a minute.
      expect(held.expiresAt).toBeGreaterThan(before + 30_000);
      const free = run();
      await runs.createRun(free);
      expect((await runs.getRun(free.id))!.lease).toBeUndefined();

      expect(await runs.takeRun(r.id, { owner: "b", ttlMs: 60_000 })).toBe(false);
      expect(await runs.takeRun(r.id, { owner: "a", ttlMs: 60_000 })).toBe(true);
      expect(await runs.renewLeases({ owner: "a", ttlMs: 120_000 })).toEqual([r.id]);
      expect((await runs.getRun(r.id))!.lease!.expiresAt).toBeGreaterThan(held.expiresAt);
      expect(await runs.renewLeases({ owner: "b", ttlMs: 120_000 })).toEqual([]);

      // The fence: only the owner writes the record of a leased run.
      expect(await runs.updateRun(r.id, { status: "failed" }, "b")).toBe(false);
      expect((await runs.getRun(r.id))!.status).toBe("running");
      expect(await runs.updateRun(r.id, { outputs: { n: 1 } }, "a")).toBe(true);
      expect(await runs.getRun(r.id)).toMatchObject({ status: "running", outputs: { n: 1 }, lease: { owner: "a" } });
      expect(await runs.updateRun(free.id, { status: "failed" }, "a")).toBe(false);
      expect(await runs.updateRun(free.id, { status: "failed" })).toBe(true);
      expect(await runs.updateRun("nope", { status: "failed" })).toBe(false);

      await runs.releaseRun(r.id, "b");
      expect((await runs.getRun(r.id))!.lease?.owner).toBe("a");
      await runs.releaseRun(r.id, "a");
      expect((await runs.getRun(r.id))!.lease).toBeUndefined();
      expect(await runs.renewLeases({ owner: "a", ttlMs: 60_000 })).toEqual([]);
      expect(await runs.takeRun(r.id, { owner: "b", ttlMs: 60_000 })).toBe(true);
      expect(await runs.takeRun("nope", { owner: "b", ttlMs: 60_000 })).toBe(false);
      // Leaving `running` drops the lease in the same write: a lease lives only while its run runs.
      expect(await runs.updateRun(r.id, { status: "paused" }, "b")).toBe(true);
      expect((await runs.getRun(r.id))!.lease).toBeUndefined();
      expect(await runs.takeRun(r.id, { owner: "c", ttlMs: 60_000 })).toBe(true);
      expect(await runs.updateRun(r.id, { status: "running" })).toBe(true);
      expect((await runs.getRun(r.id))!.lease?.owner).toBe("c");
      expect(await runs.updateRun(r.id, { status: "succeeded" })).toBe(true);
      expect((await runs.getRun(r.id))!.lease).toBeUndefined();
    }));

  it("leases: only running runs whose lease expired are claimed, each by exactly one of many concurrent claimants", () =>
    withStores(target, async ({ runs }) => {
      // A negative ttl is a lease that expired that long ago.
      const expired = Array.from({ length: 5 }, () => run());
      for (const r of expired) await runs.createRun(r, { owner: "dead", ttlMs: -1000 });
      const live = run();
      await runs.createRun(live, { owner: "alive", ttlMs: 60_000 });
      const unleased = run();
      await runs.createRun(unleased);
      const paused = run({ status: "paused" });
      await runs.createRun(paused, { owner: "dead", ttlMs: -1000 });
      const ended = run({ status: "succeeded" });
      await runs.createRun(ended, { owner: "dead", ttlMs: -1000 });

      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => runs.claimExpiredRuns({ owner: `c${i}`, ttlMs: 60_000 }, 100)),
      );
      const all = claims.flat();
      expect(all.length).toBe(new Set(all).size);
      expect(all.sort()).toEqual(expired.map((r) => r.id).sort());
      for (const [i, ids] of claims.entries())
        for (const id of ids) expect((await runs.getRun(id))!.lease!.owner).toBe(`c${i}`);
      expect((await runs.getRun(live.id))!.lease!.owner).toBe("alive");
      expect((await runs.getRun(paused.id))!.lease!.owner).toBe("dead");
      expect((await runs.getRun(unleased.id))!.lease).toBeUndefined();
      // Freshly claimed leases are valid: nothing more to claim.
      expect(await runs.claimExpiredRuns({ owner: "late", ttlMs: 60_000 }, 100)).toEqual([]);

      const more = Array.from({ length: 3 }, () => run());
      for (const r of more) await runs.createRun(r, { owner: "dead", ttlMs: -1000 });
      expect(await runs.claimExpiredRuns({ owner: "x", ttlMs: 60_000 }, 2)).toHaveLength(2);
      expect(await runs.claimExpiredRuns({ owner: "y", ttlMs: 60_000 }, 2)).toHaveLength(1);

      // A run whose owner died: of concurrent takers exactly one wins.
      const orphan = run();
      await runs.createRun(orphan, { owner: "dead", ttlMs: -1000 });
      const takes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => runs.takeRun(orphan.id, { owner: `t${i}`, ttlMs: 60_000 })),
      );
      expect(takes.filter(Boolean)).toHaveLength(1);
      expect((await runs.getRun(orphan.id))!.lease!.owner).toBe(`t${takes.indexOf(true)}`);
    }));
}

function describeApps(target: StoreTarget): void {
  it("apps: create with version 1, list newest first, versions append and rename, delete removes all", () =>
    withStores(target, async ({ apps }) => {
      expect(await apps.getApp("nope")).toBeUndefined();
      const one = await apps.createApp(
        { name: "One", mode: "workflow", description: "first" },
        { ...wf, name: "One" },
        "create",
      );
      expect(one.app).toMatchObject({ name: "One", mode: "workflow", description: "first" });
      expect(one.version).toMatchObject({ appId: one.app.id, version: 1, source: "create", note: "" });
      expect(one.version.workflow).toEqual({ ...wf, name: "One" });
      const two = await apps.createApp({ name: "Two", mode: "advanced-chat" }, { ...wf, name: "Two" }, "import");
      expect(two.app.description).toBe("");
      expect((await apps.listApps()).map((a) => a.name)).toEqual(["Two", "One"]);
      expect(await apps.getApp(one.app.id)).toEqual(one.app);

      const v2 = await apps.addVersion(one.app.id, { ...wf, name: "One renamed" }, "edit", "a note");
      expect(v2).toMatchObject({ version: 2, source: "edit", note: "a note" });
      expect(await apps.addVersion(one.app.id, wf, "agent")).toMatchObject({ version: 3, note: "" });
      expect((await apps.current(one.app.id))?.version).toBe(3);
      expect((await apps.version(one.app.id, 2))?.workflow.name).toBe("One renamed");
      expect(await apps.version(one.app.id, 9)).toBeUndefined();
      expect((await apps.versions(one.app.id)).map((v) => v.version)).toEqual([1, 2, 3]);
      expect((await apps.getApp(one.app.id))?.name).toBe(wf.name);
      expect(await apps.current("nope")).toBeUndefined();

      await apps.addMessage(one.app.id, "user", "make it so");
      await apps.addMessage(one.app.id, "assistant", "done", 3);
      await apps.addMessage(two.app.id, "user", "other app");
      const msgs = await apps.messages(one.app.id);
      expect(msgs.map((m) => [m.role, m.text, m.version])).toEqual([
        ["user", "make it so", undefined],
        ["assistant", "done", 3],
      ]);
      expect(msgs[0]!.seq).toBeLessThan(msgs[1]!.seq);

      expect(await apps.deleteApp(one.app.id)).toBe(true);
      expect(await apps.deleteApp(one.app.id)).toBe(false);
      expect(await apps.getApp(one.app.id)).toBeUndefined();
      expect(await apps.versions(one.app.id)).toEqual([]);
      expect(await apps.messages(one.app.id)).toEqual([]);
      expect((await apps.listApps()).map((a) => a.name)).toEqual(["Two"]);
    }));

  it("keys: the plain key is returned once, verified by hash, listed without secrets, revoked", () =>
    withStores(target, async ({ apps }) => {
      expect(await apps.verifyKey("weft_nothing")).toBe(false);
      const a = await apps.createKey("ci");
      const b = await apps.createKey();
      expect(a.key).toMatch(/^weft_[A-Za-z0-9_-]{32}$/);
      expect(a.key).not.toBe(b.key);
      expect(await apps.verifyKey(a.key)).toBe(true);
      expect(await apps.verifyKey(`${a.key}x`)).toBe(false);
      const list = await apps.listKeys();
      expect(list.map((k) => [k.id, k.name])).toEqual([
        [a.id, "ci"],
        [b.id, "default"],
      ]);
      expect(JSON.stringify(list)).not.toContain(a.key);
      expect(await apps.revokeKey(a.id)).toBe(true);
      expect(await apps.revokeKey(a.id)).toBe(false);
      expect(await apps.verifyKey(a.key)).toBe(false);
      expect(await apps.verifyKey(b.key)).toBe(true);
    }));
}

function describeDrafts(target: StoreTarget): void {
  const broken = { ...wf, name: "Broken", edges: [] };
  const finding = { code: "graph.unreachable", severity: "error" as const, message: "t is unreachable", nodeId: "t" };

  it("drafts: created with the app, saved with diagnostics (errors kept), every new version becomes the draft", () =>
    withStores(target, async ({ apps }) => {
      expect(await apps.draft("nope")).toBeUndefined();
      expect(await apps.saveDraft("nope", wf, [])).toBeUndefined();
      const { app } = await apps.createApp({ name: "D", mode: "workflow" }, wf, "create");
      const d1 = (await apps.draft(app.id))!;
      expect(d1).toMatchObject({ appId: app.id, revision: 1, baseVersion: 1 });
      expect(d1.workflow).toEqual(wf);
      expect(d1.diagnostics).toBeUndefined();

      const saved = await apps.saveDraft(app.id, broken, [finding], 1);
      expect(saved).toMatchObject({ saved: true, draft: { revision: 2, baseVersion: 1, diagnostics: [finding] } });
      expect((await apps.draft(app.id))?.workflow).toEqual(broken);
      // A save is not a version: history and the published version are untouched.
      expect((await apps.versions(app.id)).map((v) => v.version)).toEqual([1]);
      expect((await apps.published(app.id))?.workflow).toEqual(wf);

      // Without an expected revision the save is unconditional.
      expect(await apps.saveDraft(app.id, broken, [])).toMatchObject({ saved: true, draft: { revision: 3 } });
      const v2 = await apps.addVersion(app.id, { ...wf, name: "v2" }, "edit");
      expect(await apps.draft(app.id)).toMatchObject({
        revision: 4,
        baseVersion: v2.version,
        workflow: { name: "v2" },
      });
      expect((await apps.draft(app.id))?.diagnostics).toBeUndefined();

      expect(await apps.deleteApp(app.id)).toBe(true);
      expect(await apps.draft(app.id)).toBeUndefined();
    }));

  it("drafts: a save from a stale revision is refused with the current draft, nothing overwritten; of racing saves one wins", () =>
    withStores(target, async ({ apps }) => {
      const { app } = await apps.createApp({ name: "D", mode: "workflow" }, wf, "create");
      await apps.saveDraft(app.id, { ...wf, name: "mine" }, [], 1);
      const stale = await apps.saveDraft(app.id, { ...wf, name: "theirs" }, [], 1);
      expect(stale).toMatchObject({ saved: false, current: { revision: 2, workflow: { name: "mine" } } });
      expect((await apps.draft(app.id))?.workflow.name).toBe("mine");

      const racing = await Promise.all(
        Array.from({ length: 8 }, (_, i) => apps.saveDraft(app.id, { ...wf, name: `racer ${i}` }, [], 2)),
      );
      const won = racing.filter((r) => r?.saved);
      expect(won).toHaveLength(1);
      expect(await apps.draft(app.id)).toMatchObject({
        revision: 3,
        workflow: won[0]!.saved ? won[0]!.draft.workflow : {},
      });
    }));

  it("publish: version 1 published at creation unless asked not to; any existing version can be published (rollback)", () =>
    withStores(target, async ({ apps }) => {
      const { app } = await apps.createApp({ name: "P", mode: "workflow" }, wf, "create");
      expect(app.publishedVersion).toBe(1);
      const quiet = await apps.createApp({ name: "Q", mode: "workflow" }, broken, "import", { publish: false });
      expect(quiet.app.publishedVersion).toBeUndefined();
      expect(await apps.published(quiet.app.id)).toBeUndefined();
      expect((await apps.draft(quiet.app.id))?.workflow).toEqual(broken);

      const v2 = await apps.addVersion(app.id, { ...wf, name: "second" }, "publish");
      expect((await apps.published(app.id))?.version).toBe(1);
      expect(await apps.publish(app.id, v2.version)).toMatchObject({ id: app.id, publishedVersion: 2 });
      expect((await apps.published(app.id))?.workflow.name).toBe("second");
      expect((await apps.getApp(app.id))?.publishedVersion).toBe(2);
      expect(await apps.publish(app.id, 1)).toMatchObject({ publishedVersion: 1 });
      expect((await apps.published(app.id))?.version).toBe(1);
      // Neither an unknown version nor an unknown app changes anything.
      expect(await apps.publish(app.id, 9)).toBeUndefined();
      expect(await apps.publish("nope", 1)).toBeUndefined();
      expect((await apps.getApp(app.id))?.publishedVersion).toBe(1);
    }));
}

function describeRunLog(target: StoreTarget): void {
  const at = (t: number, over: Partial<RunRecord>) => run({ createdAt: t, updatedAt: t, ...over });

  it("run log: filters by app, status (cancelled apart from failed), source, version, time; full-text search; newest first", () =>
    withStores(target, async ({ runs, runLog }) => {
      const made = [
        at(1000, { appId: "a", status: "succeeded", inputs: { q: "the quick brown fox" }, outputs: { a: "jumps" } }),
        at(2000, { appId: "a", status: "failed", error: { code: "node.failed", message: "boom" } }),
        at(3000, { appId: "a", status: "failed", error: { code: "run.cancelled", message: "cancelled" } }),
        at(4000, { appId: "b", status: "paused", inputs: { q: "Brown bear" } }),
        at(5000, { appId: "b", status: "running" }),
        at(6000, { status: "succeeded", inputs: { q: "no app" } }),
      ];
      for (const r of made) await runs.createRun(r);
      await runs.updateRun(made[3]!.id, { outputs: { note: "zebra crossing" } });
      const tags = ["studio", "v1", "v1", "mcp", "queue", "cli"] as const;
      for (const [i, r] of made.entries()) await runLog.tag(r.id, { source: tags[i]!, version: i < 3 ? 2 : 1 });
      const ids = async (q: Parameters<typeof runLog.query>[0]) =>
        (await runLog.query(q)).runs.map((r) => made.findIndex((m) => m.id === r.id));

      expect(await ids({})).toEqual([5, 4, 3, 2, 1, 0]);
      expect(await ids({ appId: "a" })).toEqual([2, 1, 0]);
      expect(await ids({ status: ["failed"] })).toEqual([1]);
      expect(await ids({ status: ["cancelled"] })).toEqual([2]);
      expect(await ids({ status: ["paused", "running"] })).toEqual([4, 3]);
      expect(await ids({ source: ["v1"] })).toEqual([2, 1]);
      expect(await ids({ appId: "a", version: 2, source: ["studio", "v1"] })).toEqual([2, 1, 0]);
      expect(await ids({ since: 2000, until: 4000 })).toEqual([2, 1]);
      expect(await ids({ search: "brown" })).toEqual([3, 0]);
      expect(await ids({ search: "BROWN fox" })).toEqual([0]);
      // Outputs written after the run started are searched too.
      expect(await ids({ search: "zebra" })).toEqual([3]);
      expect(await ids({ search: "nothing-like-it" })).toEqual([]);
      expect(await runLog.count({ appId: "a", status: ["failed", "cancelled"] })).toBe(2);
      expect(await runLog.count({ search: "brown", limit: 1 })).toBe(2);

      const entry = (await runLog.query({ search: "fox" })).runs[0]!;
      expect(entry).toMatchObject({
        appId: "a",
        status: "succeeded",
        source: "studio",
        version: 2,
        workflowName: wf.name,
      });
      expect(entry.inputs).toEqual({ q: "the quick brown fox" });
      expect(entry).not.toHaveProperty("workflow");
    }));

  it("run log: cursor pages cover every run once, also within one millisecond; bad queries are typed errors", () =>
    withStores(target, async ({ runs, runLog }) => {
      const made = Array.from({ length: 7 }, (_, i) => at(i < 4 ? 500 : 900, { appId: "p" }));
      for (const r of made) await runs.createRun(r);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await runLog.query({ appId: "p", limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.runs.map((r) => r.id));
        cursor = page.next;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(7);
      expect(seen.sort()).toEqual(made.map((r) => r.id).sort());

      await expect(runLog.query({ cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "runs.invalid_cursor" });
      await expect(runLog.query({ search: "!!" })).rejects.toMatchObject({ code: "runs.invalid_search" });
      await expect(runLog.query({ limit: 0 })).rejects.toMatchObject({ code: "runs.invalid_limit" });
    }));

  it("retention: by age and per app, never a running or paused run, with the run's trace and commits", () =>
    withStores(target, async ({ runs, runLog }) => {
      const day = 86_400_000;
      const now = 100 * day;
      const old = at(now - 40 * day, { appId: "r", status: "succeeded" });
      const oldPaused = at(now - 40 * day, { appId: "r", status: "paused" });
      const recent = Array.from({ length: 4 }, (_, i) => at(now - (4 - i) * 1000, { appId: "r", status: "failed" }));
      const running = at(now - 10 * 1000, { appId: "r", status: "running" });
      for (const r of [old, oldPaused, running, ...recent]) await runs.createRun(r);
      await runs.commitNode(old.id, commit("t", { output: "x" }), attempt(old.id, "t", 1));

      expect(await runLog.prune({ maxAgeDays: 30 }, now)).toBe(1);
      expect(await runs.getRun(old.id)).toBeUndefined();
      expect(await runs.attempts(old.id)).toEqual([]);
      expect((await runs.committed(old.id)).size).toBe(0);
      expect(await runs.getRun(oldPaused.id)).toBeDefined();

      // Keep 2 per app: the two newest stay, the older failed ones go, the paused and running ones stay.
      expect(await runLog.prune({ maxRunsPerApp: 2 }, now)).toBe(2);
      const left = (await runLog.query({ appId: "r" })).runs.map((r) => r.id);
      expect(left.sort()).toEqual([recent[3]!.id, recent[2]!.id, running.id, oldPaused.id].sort());
    }));
}

function describeEvents(target: StoreTarget): void {
  it("events: batches for many runs in one call, read in order, replayed after a sequence number, rewrites replace", () =>
    withStores(target, async ({ apps }) => {
      expect(await apps.events("nope")).toEqual([]);
      await apps.appendEvents([
        { runId: "r1", from: 0, events: [ev("r1", "a"), ev("r1", "b")] },
        { runId: "r2", from: 0, events: [ev("r2", "x")] },
      ]);
      await apps.appendEvents([{ runId: "r1", from: 2, events: [ev("r1", "c"), ev("r1", "d")] }]);
      await apps.appendEvents([]);
      const ids = async (runId: string, after?: number) =>
        (await apps.events(runId, after)).map((e) => (e as { nodeId: string }).nodeId);
      expect(await ids("r1")).toEqual(["a", "b", "c", "d"]);
      expect(await ids("r2")).toEqual(["x"]);
      // SSE Last-Event-ID: the client saw sequence number 1 and wants what came after it.
      expect(await ids("r1", 1)).toEqual(["c", "d"]);
      expect(await ids("r1", -1)).toEqual(["a", "b", "c", "d"]);
      expect(await ids("r1", 3)).toEqual([]);
      // A batch written again after a crash replaces, never duplicates.
      await apps.appendEvents([{ runId: "r1", from: 1, events: [ev("r1", "B"), ev("r1", "C")] }]);
      expect(await ids("r1")).toEqual(["a", "B", "C", "d"]);
      const full = await apps.events("r1");
      expect(full[0]).toEqual(ev("r1", "a"));
    }));
}

const proposal = (appId: string, baseVersion: number): NewProposal => ({
  appId,
  baseVersion,
  source: "agent",
  instruction: "rename é ✓",
  workflow: { ...wf, name: "Proposed" },
  diff: {
    nodes: { added: [], removed: [], changed: [] },
    edges: { added: [], removed: [] },
    meta: [],
  } as unknown as WorkflowDiff,
  diagnostics: [{ code: "x.warn", severity: "warning", message: "w" }],
  newErrors: [],
  summary: "renamed",
});

function describeProposals(target: StoreTarget): void {
  it("proposals: pending until decided once; apply writes the draft (not a version) only while it is at the expected revision; undo restores the base", () =>
    withStores(target, async ({ apps }) => {
      const { app } = await apps.createApp({ name: "P", mode: "workflow" }, wf, "create");
      const base = (await apps.draft(app.id))!;
      const made = { ...proposal(app.id, 1), baseRevision: base.revision, baseWorkflow: base.workflow };
      const p1 = await apps.createProposal(made);
      expect(p1).toMatchObject({
        appId: app.id,
        baseVersion: 1,
        baseRevision: base.revision,
        baseWorkflow: base.workflow,
        status: "pending",
        summary: "renamed",
        instruction: "rename é ✓",
      });
      expect(p1.id).toMatch(/^prop_/);
      expect(p1.appliedRevision).toBeUndefined();
      expect(p1.undoneAt).toBeUndefined();
      expect(await apps.proposal(app.id, p1.id)).toEqual(p1);
      expect(await apps.proposal("other", p1.id)).toBeUndefined();
      expect(p1.tests).toBeUndefined();
      // A proposal's test result (issue 34) is stored with it and read back whole.
      const tests = {
        mode: "cases" as const,
        passed: 1,
        failed: 1,
        was: { passed: 2, failed: 0 },
        failures: [
          {
            caseId: "c1",
            caseName: "refund ✓",
            nodeId: "n",
            nodeTitle: "Classify",
            message: "expected a got b",
            runId: "run_1",
          },
        ],
        revisions: 1,
        line: "tests: 1/2 pass (was 2/2)",
      };
      const p2 = await apps.createProposal({ ...made, tests });
      expect((await apps.proposal(app.id, p2.id))?.tests).toEqual(tests);
      expect((await apps.proposals(app.id)).map((p) => p.id)).toEqual([p1.id, p2.id]);
      // A proposal stored without a draft base (made before drafts) reads back without one.
      const legacy = await apps.createProposal(proposal(app.id, 1));
      expect(legacy.baseRevision).toBeUndefined();
      expect(legacy.baseWorkflow).toBeUndefined();
      expect(await apps.decideProposal(app.id, legacy.id, "superseded")).toBe(true);

      expect(await apps.decideProposal(app.id, p2.id, "rejected")).toBe(true);
      expect(await apps.decideProposal(app.id, p2.id, "superseded")).toBe(false);
      expect(await apps.applyProposal(app.id, p2.id, base.revision, [])).toBeUndefined();
      expect((await apps.proposals(app.id, "pending")).map((p) => p.id)).toEqual([p1.id]);
      // At another revision than the draft's: refused, nothing written, still pending.
      expect(await apps.applyProposal(app.id, p1.id, base.revision + 5, [])).toBeUndefined();
      expect((await apps.proposal(app.id, p1.id))?.status).toBe("pending");

      const finding = { code: "x.warn", severity: "warning" as const, message: "w" };
      const tries = await Promise.all([
        apps.applyProposal(app.id, p1.id, base.revision, [finding]),
        apps.applyProposal(app.id, p1.id, base.revision, [finding]),
      ]);
      const d = tries.find((t) => t !== undefined)!;
      expect(tries.filter((t) => t !== undefined)).toHaveLength(1);
      expect(d).toMatchObject({ revision: base.revision + 1, baseVersion: 1, diagnostics: [finding] });
      expect(d.workflow.name).toBe("Proposed");
      expect(await apps.draft(app.id)).toMatchObject({ revision: base.revision + 1, workflow: { name: "Proposed" } });
      // No version was made: what end users run is untouched until a publish.
      expect((await apps.versions(app.id)).map((v) => v.version)).toEqual([1]);
      const applied = (await apps.proposal(app.id, p1.id))!;
      expect(applied).toMatchObject({ status: "applied", appliedRevision: base.revision + 1 });
      expect(applied.appliedVersion).toBeUndefined();
      expect(applied.decidedAt).toBeGreaterThan(0);

      // Undo: only while the draft is at the expected revision, only once.
      expect(await apps.undoProposal(app.id, p1.id, base.revision, [])).toBeUndefined();
      expect(await apps.undoProposal(app.id, p2.id, d.revision, [])).toBeUndefined();
      const undos = await Promise.all([
        apps.undoProposal(app.id, p1.id, d.revision, []),
        apps.undoProposal(app.id, p1.id, d.revision, []),
      ]);
      expect(undos.filter((t) => t !== undefined)).toHaveLength(1);
      expect(await apps.draft(app.id)).toMatchObject({ revision: d.revision + 1, workflow: base.workflow });
      expect((await apps.proposal(app.id, p1.id))?.undoneAt).toBeGreaterThan(0);
      expect(await apps.undoProposal(app.id, p1.id, d.revision + 1, [])).toBeUndefined();

      // Restoring a version makes it the draft (next revision, based on it).
      const v2 = await apps.addVersion(app.id, { ...wf, name: "second" }, "edit");
      await apps.saveDraft(app.id, { ...wf, name: "edited" }, []);
      const before = (await apps.draft(app.id))!.revision;
      expect(await apps.restoreDraft(app.id, 1)).toMatchObject({
        revision: before + 1,
        baseVersion: 1,
        workflow: base.workflow,
      });
      expect(await apps.draft(app.id)).toMatchObject({ revision: before + 1, baseVersion: 1, workflow: base.workflow });
      expect(await apps.restoreDraft(app.id, 99)).toBeUndefined();
      expect(await apps.restoreDraft("nope", 1)).toBeUndefined();
      expect((await apps.versions(app.id)).map((v) => v.version)).toEqual([1, v2.version]);

      const undo = await apps.addVersion(app.id, wf, "undo", "undo", { parent: 2, restores: 1 });
      expect(undo).toMatchObject({ version: 3, parent: 2, restores: 1 });
      expect((await apps.addVersion(app.id, wf, "edit")).parent).toBe(3);
      expect((await apps.version(app.id, 1))?.parent).toBeUndefined();

      await apps.addMessage(app.id, "assistant", "nothing", undefined, {
        outcome: { kind: "rejected", summary: "no", diagnostics: [] },
        proposalId: p2.id,
      });
      expect((await apps.messages(app.id)).at(-1)).toMatchObject({
        outcome: { kind: "rejected", summary: "no" },
        proposalId: p2.id,
      });
      expect(await apps.deleteApp(app.id)).toBe(true);
      expect(await apps.proposals(app.id)).toEqual([]);
    }));

  it("a proposal made before drafts (no base workflow) applied to the draft keeps what it replaced, so undo puts it back", () =>
    withStores(target, async ({ apps }) => {
      const { app } = await apps.createApp({ name: "Legacy", mode: "workflow" }, wf, "create");
      // As JSON: what a database gives back has no keys holding undefined.
      const edited = JSON.parse(JSON.stringify({ ...wf, name: "edited before the apply" }));
      const saved = await apps.saveDraft(app.id, edited, []);
      const legacy = await apps.createProposal(proposal(app.id, 1));
      expect(legacy.baseWorkflow).toBeUndefined();
      const d = await apps.applyProposal(app.id, legacy.id, saved!.saved ? saved!.draft.revision : 0, []);
      expect(d).toMatchObject({ workflow: { name: "Proposed" } });
      const applied = (await apps.proposal(app.id, legacy.id))!;
      expect(applied).toMatchObject({ status: "applied", appliedRevision: d!.revision, baseWorkflow: edited });
      expect(applied.baseRevision).toBeUndefined();
      expect(await apps.undoProposal(app.id, legacy.id, d!.revision, [])).toMatchObject({ workflow: edited });

      // An undo given the workflow to restore (the base with the draft's layout) writes that, not the stored base.
      const d2 = (await apps.draft(app.id))!;
      const p3 = await apps.createProposal({
        ...proposal(app.id, 1),
        baseRevision: d2.revision,
        baseWorkflow: d2.workflow,
      });
      const a3 = (await apps.applyProposal(app.id, p3.id, d2.revision, []))!;
      const placed = { ...d2.workflow, name: "base, placed" };
      expect(await apps.undoProposal(app.id, p3.id, a3.revision, [], placed)).toMatchObject({
        revision: a3.revision + 1,
        workflow: placed,
      });
      expect((await apps.draft(app.id))!.workflow).toEqual(placed);

      // A proposal that has its base keeps it: applying never overwrites it with the draft's content.
      const cur = (await apps.draft(app.id))!;
      const own = JSON.parse(JSON.stringify({ ...wf, name: "its own base" }));
      const made = { ...proposal(app.id, 1), baseRevision: cur.revision, baseWorkflow: own };
      const p = await apps.createProposal(made);
      await apps.applyProposal(app.id, p.id, cur.revision, []);
      expect((await apps.proposal(app.id, p.id))?.baseWorkflow).toEqual(own);
    }));
}

function describeConversations(target: StoreTarget): void {
  it("conversations: start empty, each finished turn stores the variables and counts one dialogue, deleted with their app", () =>
    withStores(target, async ({ conversations }) => {
      const c = await conversations.create("app-1");
      expect(c).toMatchObject({ appId: "app-1", variables: {}, dialogueCount: 0 });
      const other = await conversations.create("app-2");
      await conversations.finishTurn(c.id, { notes: ["é ✓"], n: 1 });
      await conversations.finishTurn(c.id, { notes: ["é ✓", "second"], n: 2 });
      expect(await conversations.get(c.id)).toMatchObject({
        variables: { notes: ["é ✓", "second"], n: 2 },
        dialogueCount: 2,
      });
      expect(await conversations.get("nope")).toBeUndefined();
      await conversations.deleteApp("app-1");
      expect(await conversations.get(c.id)).toBeUndefined();
      expect((await conversations.get(other.id))?.dialogueCount).toBe(0);
    }));

  it("conversations: the service API's belong to one end user, page in each sort order, renamed, deleted with their messages", () =>
    withStores(target, async ({ conversations }) => {
      const tick = () => new Promise((r) => setTimeout(r, 3));
      const made: Record<string, string> = {};
      for (const [name, user] of [
        ["c1", "u"],
        ["c2", "u"],
        ["c3", "u"],
        ["c4", "other"],
      ] as const) {
        made[name] = (await conversations.create("a", { user, name, inputs: { x: name } })).id;
        await tick();
      }
      const studio = await conversations.create("a");
      expect(studio).toMatchObject({ user: "", name: "", inputs: {} });
      // Activity order: c2, then c1, then c3 last.
      for (const n of ["c2", "c1", "c3"]) {
        await conversations.finishTurn(made[n]!, { n });
        await tick();
      }
      const names = async (o: Parameters<typeof conversations.list>[2]) => {
        const page = await conversations.list("a", "u", o);
        return page && { names: page.data.map((c) => c.name), more: page.hasMore };
      };
      expect(await names({ limit: 2 })).toEqual({ names: ["c3", "c1"], more: true });
      expect(await names({ limit: 2, lastId: made.c1 })).toEqual({ names: ["c2"], more: false });
      expect(await names({ limit: 5, sort: "created_at" })).toEqual({ names: ["c1", "c2", "c3"], more: false });
      expect(await names({ limit: 1, sort: "-created_at", lastId: made.c3 })).toEqual({ names: ["c2"], more: true });
      expect(await names({ limit: 2, lastId: made.c4 })).toBeUndefined();
      await conversations.rename(made.c2!, "renamed ü");
      expect(await conversations.get(made.c2!)).toMatchObject({ name: "renamed ü", inputs: { x: "c2" }, user: "u" });
      expect((await names({ limit: 1 }))?.names).toEqual(["renamed ü"]);

      const c1 = made.c1!;
      const msg = (id: string, createdAt: number) =>
        conversations.addMessage({
          id,
          conversationId: c1,
          appId: "a",
          user: "u",
          runId: `run-${id}`,
          query: `q ${id}`,
          answer: "",
          inputs: {},
          files: [],
          status: "normal",
          createdAt,
          updatedAt: createdAt,
        });
      for (const [id, t] of [
        ["m1", 1],
        ["m2", 2],
        ["m3", 3],
        ["m4", 3],
      ] as const)
        await msg(id, t);
      const mids = async (o: { firstId?: string; limit: number }) => {
        const page = await conversations.listMessages(c1, o);
        return page && { ids: page.data.map((m) => m.id), more: page.hasMore };
      };
      expect(await mids({ limit: 2 })).toEqual({ ids: ["m3", "m4"], more: true });
      expect(await mids({ limit: 2, firstId: "m3" })).toEqual({ ids: ["m1", "m2"], more: false });
      expect(await mids({ limit: 10, firstId: "m1" })).toEqual({ ids: [], more: false });
      expect(await mids({ limit: 2, firstId: "nope" })).toBeUndefined();
      await conversations.updateMessage("m2", { answer: "done ✓", status: "error", error: "boom", updatedAt: 8 });
      expect(await conversations.getMessage("m2")).toMatchObject({
        answer: "done ✓",
        status: "error",
        error: "boom",
        query: "q m2",
      });
      await conversations.updateMessage("m3", { status: "paused" });
      expect((await conversations.getMessage("m3"))?.status).toBe("paused");
      expect((await conversations.messages(c1)).map((m) => m.id)).toEqual(["m1", "m2", "m3", "m4"]);
      expect(await conversations.delete(c1)).toBe(true);
      expect(await conversations.delete(c1)).toBe(false);
      expect(await conversations.messages(c1)).toEqual([]);
      expect(await conversations.getMessage("m1")).toBeUndefined();
      await conversations.deleteApp("a");
      expect(await conversations.get(studio.id)).toBeUndefined();
    }));
}

/** Two connections to one database: what two servers or workers see of each other's writes. */
function describeSharing(target: StoreTarget, openAgain: () => Promise<Stores>): void {
  it("two connections: commits race with one winner, and each sees the other's runs, apps, keys, events and proposals", async () => {
    const a = await target.open();
    const b = await openAgain();
    try {
      const r = run();
      await a.runs.createRun(r);
      expect(await b.runs.getRun(r.id)).toEqual(r);
      const tries = Array.from({ length: 10 }, (_, i) => commit("t", { output: `try ${i}` }));
      const results = await Promise.all(tries.map((c, i) => (i % 2 ? a : b).runs.commitNode(r.id, c)));
      expect(results.filter((res, i) => res === tries[i])).toHaveLength(1);
      expect(new Set(results.map((res) => JSON.stringify(res))).size).toBe(1);
      expect(await a.runs.artifacts(r.id)).toEqual(await b.runs.artifacts(r.id));

      const { app } = await a.apps.createApp({ name: "Shared", mode: "workflow" }, wf, "create");
      expect((await b.apps.getApp(app.id))?.name).toBe("Shared");
      await b.apps.addVersion(app.id, wf, "edit");
      expect((await a.apps.current(app.id))?.version).toBe(2);
      // Autosaves from two servers at one revision: exactly one is stored, the other gets it back.
      const saves = await Promise.all([
        a.apps.saveDraft(app.id, { ...wf, name: "from a" }, [], 2),
        b.apps.saveDraft(app.id, { ...wf, name: "from b" }, [], 2),
      ]);
      expect(saves.filter((s) => s?.saved)).toHaveLength(1);
      expect(await b.apps.publish(app.id, 2)).toMatchObject({ publishedVersion: 2 });
      expect((await a.apps.published(app.id))?.version).toBe(2);
      const key = await a.apps.createKey("k");
      expect(await b.apps.verifyKey(key.key)).toBe(true);
      await a.apps.appendEvents([{ runId: r.id, from: 0, events: [ev(r.id, "a")] }]);
      expect(await b.apps.events(r.id)).toEqual([ev(r.id, "a")]);

      // Servers on both connections sweep at once: each expired run is claimed by exactly one of them.
      const dead = Array.from({ length: 12 }, () => run());
      for (const d of dead) await a.runs.createRun(d, { owner: "dead", ttlMs: -1000 });
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? a : b).runs.claimExpiredRuns({ owner: `s${i}`, ttlMs: 60_000 }, 5),
        ),
      );
      const claimed = claims.flat();
      expect(claimed.length).toBe(new Set(claimed).size);
      expect(claimed.sort()).toEqual(dead.map((d) => d.id).sort());
      const orphan = run();
      await b.runs.createRun(orphan, { owner: "dead", ttlMs: -1000 });
      const takes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).runs.takeRun(orphan.id, { owner: `t${i}`, ttlMs: 60_000 })),
      );
      expect(takes.filter(Boolean)).toHaveLength(1);
      expect((await a.runs.getRun(orphan.id))!.lease!.owner).toBe(`t${takes.indexOf(true)}`);
      const p = await a.apps.createProposal(proposal(app.id, 2));
      expect(await b.apps.decideProposal(app.id, p.id, "rejected")).toBe(true);
      expect(await a.apps.decideProposal(app.id, p.id, "superseded")).toBe(false);

      // A form answered through one server while the other times it out: exactly one close wins.
      const f = await a.forms.createForm(form(r.id, "ask"));
      expect((await b.forms.formByToken(f.token))?.id).toBe(f.id);
      const [x, y] = await Promise.all([
        a.forms.closeForm(f.id, { status: "timeout" }, 5),
        b.forms.closeForm(f.id, { status: "submitted", submission: { action: "ok", inputs: {}, submittedAt: 5 } }, 5),
      ]);
      expect(x?.status).toBe(y?.status);
      const appKey = await a.service.createAppKey(app.id);
      expect(await b.service.appOfKey(appKey.key)).toBe(app.id);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("durability: everything written is there after the database is closed and opened again", async () => {
    const a = await target.open();
    const r = run();
    await a.runs.createRun(r);
    const c = commit("t", { output: "kept" });
    await a.runs.commitNode(r.id, c);
    await a.runs.appendAttempt(attempt(r.id, "t", 1));
    const { app } = await a.apps.createApp({ name: "Kept", mode: "workflow" }, wf, "create");
    const f = await a.forms.createForm(form(r.id, "ask"));
    const appKey = await a.service.createAppKey(app.id);
    const p = await a.apps.createProposal(proposal(app.id, 1));
    await a.apps.saveDraft(app.id, { ...wf, name: "autosaved" }, [], 1);
    await a.apps.addMessage(app.id, "assistant", "proposed", undefined, {
      proposalId: p.id,
      outcome: { kind: "unchanged", summary: "Nothing changed." },
    });
    const conv = await a.conversations.create(app.id);
    await a.conversations.finishTurn(conv.id, { kept: true });
    const chunking = {
      separator: "\n\n",
      maxLength: 300,
      overlap: 30,
      removeExtraSpaces: true,
      removeUrlsEmails: false,
    };
    await a.knowledge.createBase({ id: "kept-kb", name: "Kept", chunking });
    await a.knowledge.addDocument("kept-kb", { name: "k.md", mimeType: "text/markdown", size: 1 }, [
      { content: "durable words" },
    ]);
    await a.close();
    const b = await openAgain();
    try {
      expect(await b.forms.getForm(f.id)).toEqual(f);
      expect(await b.service.appOfKey(appKey.key)).toBe(app.id);
      expect((await b.runs.committed(r.id)).get("t")).toEqual(c);
      expect(await b.runs.attempts(r.id)).toHaveLength(1);
      expect((await b.apps.getApp(app.id))?.name).toBe("Kept");
      expect(await b.apps.draft(app.id)).toMatchObject({ revision: 2, workflow: { name: "autosaved" } });
      expect((await b.apps.published(app.id))?.version).toBe(1);
      expect(await b.apps.proposal(app.id, p.id)).toEqual(p);
      expect((await b.apps.messages(app.id))[0]).toMatchObject({ proposalId: p.id, outcome: { kind: "unchanged" } });
      expect((await b.conversations.get(conv.id))?.variables).toEqual({ kept: true });
      expect((await b.knowledge.searchText(["kept-kb"], "durable", 5))[0]?.content).toBe("durable words");
    } finally {
      await b.close();
    }
  });
}

let formSeq = 0;
const form = (runId: string, key: string, over: Partial<FormRecord> = {}): FormRecord => ({
  id: `form-${++formSeq}`,
  token: `token-${formSeq}-${Math.random().toString(36).slice(2)}`,
  runId,
  key,
  nodeId: key.split("/").at(-1)!,
  nodeTitle: "Approve",
  content: "Approve {{#$output.note#}}? é ✓",
  inputs: [{ type: "paragraph", output_variable_name: "note", default: { type: "constant", value: "" } }],
  actions: [
    { id: "approve", title: "Approve", button_style: "primary" },
    { id: "reject", title: "Reject", button_style: "default" },
  ],
  defaults: { note: "draft" },
  createdAt: 1000 + formSeq,
  expiresAt: 5000,
  status: "waiting",
  ...over,
});

function describeEnv(target: StoreTarget): void {
  const sealed = (n: number) => ({ keyId: `k${n}`, iv: `iv${n}`, tag: `tag${n}`, data: `data${n}` });
  it("env: values by app and name, replaced whole (type included), listed by name, deleted per name and per app", () =>
    withStores(target, async ({ env }) => {
      expect(await env.list("a1")).toEqual([]);
      expect(await env.get("a1", "X")).toBeUndefined();
      await env.put({ appId: "a1", name: "REGION", type: "string", value: "eu ✓", updatedAt: 1 });
      await env.put({ appId: "a1", name: "LIMIT", type: "number", value: 2.5, updatedAt: 2 });
      await env.put({ appId: "a1", name: "KEY", type: "secret", sealed: sealed(1), updatedAt: 3 });
      await env.put({ appId: "a2", name: "KEY", type: "string", value: "", updatedAt: 4 });
      expect(await env.list("a1")).toEqual([
        { appId: "a1", name: "KEY", type: "secret", sealed: sealed(1), updatedAt: 3 },
        { appId: "a1", name: "LIMIT", type: "number", value: 2.5, updatedAt: 2 },
        { appId: "a1", name: "REGION", type: "string", value: "eu ✓", updatedAt: 1 },
      ]);
      expect(await env.get("a2", "KEY")).toEqual({ appId: "a2", name: "KEY", type: "string", value: "", updatedAt: 4 });
      // A string becoming a secret keeps no plain value.
      await env.put({ appId: "a2", name: "KEY", type: "secret", sealed: sealed(2), updatedAt: 5 });
      expect(await env.get("a2", "KEY")).toEqual({
        appId: "a2",
        name: "KEY",
        type: "secret",
        sealed: sealed(2),
        updatedAt: 5,
      });
      expect(await env.delete("a1", "LIMIT")).toBe(true);
      expect(await env.delete("a1", "LIMIT")).toBe(false);
      expect((await env.list("a1")).map((r) => r.name)).toEqual(["KEY", "REGION"]);
      await env.deleteApp("a1");
      expect(await env.list("a1")).toEqual([]);
      expect((await env.list("a2")).map((r) => r.name)).toEqual(["KEY"]);
    }));

  it("env: every app's secrets are listed, and a reseal replaces their sealed values only", () =>
    withStores(target, async ({ env }) => {
      await env.put({ appId: "b1", name: "S", type: "secret", sealed: sealed(1), updatedAt: 1 });
      await env.put({ appId: "b2", name: "S", type: "secret", sealed: sealed(2), updatedAt: 1 });
      await env.put({ appId: "b2", name: "P", type: "string", value: "plain", updatedAt: 1 });
      expect((await env.secrets()).map((r) => `${r.appId}.${r.name}`)).toEqual(["b1.S", "b2.S"]);
      await env.reseal([
        { appId: "b1", name: "S", type: "secret", sealed: sealed(9), updatedAt: 1 },
        // Not a secret: a reseal never turns a plain value into one.
        { appId: "b2", name: "P", type: "secret", sealed: sealed(8), updatedAt: 1 },
      ]);
      expect((await env.get("b1", "S"))?.sealed).toEqual(sealed(9));
      expect((await env.get("b2", "S"))?.sealed).toEqual(sealed(2));
      expect(await env.get("b2", "P")).toEqual({
        appId: "b2",
        name: "P",
        type: "string",
        value: "plain",
        updatedAt: 1,
      });
    }));
}

function describeForms(target: StoreTarget): void {
  it("forms: one per (run, key), found by id, token and key, listed per run and while waiting", () =>
    withStores(target, async ({ forms }) => {
      expect(await forms.getForm("nope")).toBeUndefined();
      expect(await forms.formByToken("nope")).toBeUndefined();
      const a = await forms.createForm(form("r1", "ask"));
      expect(a).toEqual({ ...a, status: "waiting", expiresAt: 5000, defaults: { note: "draft" } });
      // The node reached again after a resume: the stored form stands, with its token.
      const again = await forms.createForm(form("r1", "ask", { content: "other" }));
      expect(again).toEqual(a);
      const b = await forms.createForm(form("r1", "iter[1]/ask", { expiresAt: null }));
      const c = await forms.createForm(form("r2", "ask"));
      expect(b.expiresAt).toBeNull();
      expect(await forms.getForm(a.id)).toEqual(a);
      expect(await forms.formByToken(b.token)).toEqual(b);
      expect(await forms.formOf("r1", "iter[1]/ask")).toEqual(b);
      expect(await forms.formOf("r1", "nope")).toBeUndefined();
      expect((await forms.runForms("r1")).map((f) => f.id)).toEqual([a.id, b.id]);
      expect((await forms.waitingForms()).map((f) => f.id)).toEqual([a.id, b.id, c.id]);
    }));

  it("forms: the first close wins; a submission round-trips; closed forms are no longer waiting", () =>
    withStores(target, async ({ forms }) => {
      const a = await forms.createForm(form("r3", "ask"));
      const b = await forms.createForm(form("r3", "ask2"));
      const submission = { action: "approve", inputs: { note: "ok ✓", n: 1 }, user: "u1", submittedAt: 2000 };
      const closed = await forms.closeForm(a.id, { status: "submitted", submission }, 2001);
      expect(closed).toMatchObject({ status: "submitted", submission, closedAt: 2001 });
      // A late timeout (or a second answer) changes nothing.
      expect(await forms.closeForm(a.id, { status: "timeout" }, 3000)).toEqual(closed);
      expect(
        await forms.closeForm(a.id, { status: "submitted", submission: { ...submission, action: "reject" } }, 3000),
      ).toEqual(closed);
      expect(await forms.closeForm(b.id, { status: "timeout" }, 4000)).toMatchObject({
        status: "timeout",
        closedAt: 4000,
      });
      expect((await forms.getForm(b.id))?.submission).toBeUndefined();
      expect(await forms.closeForm("nope", { status: "timeout" }, 1)).toBeUndefined();
      expect((await forms.waitingForms()).filter((f) => f.runId === "r3")).toEqual([]);
      const many = await forms.createForm(form("r4", "race"));
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          forms.closeForm(
            many.id,
            { status: "submitted", submission: { action: `a${i}`, inputs: {}, submittedAt: i } },
            10 + i,
          ),
        ),
      );
      expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    }));
}

function describeServiceApi(target: StoreTarget): void {
  it("service API: app keys are bound to one app, stored as hashes, listed and revoked", () =>
    withStores(target, async ({ service }) => {
      expect(await service.appOfKey("app-nothing")).toBeUndefined();
      const a = await service.createAppKey("app-1");
      const b = await service.createAppKey("app-2");
      expect(a.key).toMatch(/^app-[A-Za-z0-9_-]{24}$/);
      expect(await service.appOfKey(a.key)).toBe("app-1");
      expect(await service.appOfKey(b.key)).toBe("app-2");
      expect(await service.appOfKey(`${a.key}x`)).toBeUndefined();
      expect((await service.listAppKeys()).map((k) => [k.id, k.appId])).toEqual([
        [a.id, "app-1"],
        [b.id, "app-2"],
      ]);
      expect((await service.listAppKeys("app-2")).map((k) => k.id)).toEqual([b.id]);
      // Oldest first even for keys made in the same millisecond (their ids are random within it).
      const burst = [];
      for (let i = 0; i < 20; i++) burst.push((await service.createAppKey("app-3")).id);
      expect((await service.listAppKeys("app-3")).map((k) => k.id)).toEqual(burst);
      expect(JSON.stringify(await service.listAppKeys())).not.toContain(a.key);
      expect(await service.revokeAppKey(a.id)).toBe(true);
      expect(await service.revokeAppKey(a.id)).toBe(false);
      expect(await service.appOfKey(a.key)).toBeUndefined();
    }));

  it("service API: end-user runs, uploads", () =>
    withStores(target, async ({ service }) => {
      expect(await service.serviceRun("nope")).toBeUndefined();
      await service.recordRun({ runId: "r1", appId: "a", user: "u", createdAt: 5 });
      await service.recordRun({
        runId: "r2",
        appId: "a",
        user: "u",
        conversationId: "c",
        messageId: "m",
        files: [
          {
            type: "image",
            transfer_method: "remote_url",
            url: "https://x.test/a.png",
            filename: "a.png",
            extension: ".png",
            mime_type: "",
            size: -1,
          },
        ],
        createdAt: 6,
      });
      expect(await service.serviceRun("r1")).toEqual({ runId: "r1", appId: "a", user: "u", files: [], createdAt: 5 });
      expect(await service.serviceRun("r2")).toMatchObject({ conversationId: "c", messageId: "m" });
      expect((await service.serviceRun("r2"))!.files).toEqual([
        {
          type: "image",
          transfer_method: "remote_url",
          url: "https://x.test/a.png",
          filename: "a.png",
          extension: ".png",
          mime_type: "",
          size: -1,
        },
      ]);
      const file = {
        dify_model_identity: "__dify__file__" as const,
        type: "document" as const,
        transfer_method: "local_file" as const,
        remote_url: null,
        url: null,
        filename: "notes é.txt",
        extension: ".txt",
        mime_type: "text/plain",
        size: 3,
        related_id: "a".repeat(64),
      };
      await service.putUpload({ id: "up1", appId: "a", user: "u", file, createdAt: 7 });
      expect(await service.getUpload("up1")).toEqual({ id: "up1", appId: "a", user: "u", file, createdAt: 7 });
      expect(await service.getUpload("nope")).toBeUndefined();
    }));
}
