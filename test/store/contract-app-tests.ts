// App test cases, settings, gate overrides and cached model answers, part of the store contract: every backend
// (memory, SQLite, PostgreSQL) runs it from contract.test.ts through describeStoreContract.
import { expect, it } from "vitest";
import type { TestCaseRecord } from "../../src/store/app-tests.js";
import { type StoreTarget, withStores } from "./store-target.js";

const fileValue = {
  dify_model_identity: "__dify__file__",
  type: "document",
  transfer_method: "local_file",
  related_id: "f-1",
  filename: "notes ✓.txt",
  extension: ".txt",
  mime_type: "text/plain",
  size: 12,
};

const refund: TestCaseRecord = {
  id: "c1",
  appId: "a1",
  name: "refund",
  inputs: { text: "I want my money back ✓", n: 2.5, doc: fileValue },
  sys: { query: "hello" },
  expect: [
    { output: "answer", check: "contains", value: "refund" },
    { output: "score", check: "number", value: 0.5, tolerance: 0.01 },
    { output: "data", check: "json_schema", schema: { type: "object", required: ["x"] } },
    { output: "file", check: "file_type", extension: ".pdf" },
  ],
  judge: { rubric: "Answers politely", reference: "We refund within 14 days." },
  sourceRunId: "run-1",
  createdAt: 10,
  updatedAt: 10,
};

export function describeAppTests(target: StoreTarget): void {
  it("app tests: cases by app kept whole (files, checks, rubric), listed oldest first, updated, deleted", () =>
    withStores(target, async ({ appTests }) => {
      expect(await appTests.listCases("a1")).toEqual([]);
      expect(await appTests.addCase(refund)).toBe(true);
      // The id is the app's: a second case under it is refused and the first is kept.
      expect(await appTests.addCase({ ...refund, name: "other" })).toBe(false);
      const plain: TestCaseRecord = {
        id: "c0",
        appId: "a1",
        name: "plain",
        inputs: {},
        expect: [{ output: "x", check: "exact", value: { deep: [1, null, "z"] } }],
        createdAt: 20,
        updatedAt: 20,
      };
      await appTests.addCase(plain);
      await appTests.addCase({ ...plain, appId: "a2" });
      expect(await appTests.getCase("a1", "c1")).toEqual(refund);
      expect((await appTests.listCases("a1")).map((c) => c.id)).toEqual(["c1", "c0"]);
      expect(await appTests.getCase("a1", "c0")).toEqual(plain);
      const edited = { ...refund, name: "refund (edited)", expect: [refund.expect[0]!], updatedAt: 30 };
      delete (edited as Partial<TestCaseRecord>).judge;
      expect(await appTests.updateCase(edited)).toBe(true);
      expect(await appTests.getCase("a1", "c1")).toEqual(edited);
      expect(await appTests.updateCase({ ...edited, id: "nope" })).toBe(false);
      expect(await appTests.deleteCase("a1", "c0")).toBe(true);
      expect(await appTests.deleteCase("a1", "c0")).toBe(false);
      expect((await appTests.listCases("a1")).map((c) => c.id)).toEqual(["c1"]);
      expect((await appTests.listCases("a2")).map((c) => c.id)).toEqual(["c0"]);
    }));

  it("app tests: settings per app replaced whole; overrides newest first; deleteApp removes all three", () =>
    withStores(target, async ({ appTests }) => {
      expect(await appTests.settings("a1")).toBeUndefined();
      await appTests.putSettings({ appId: "a1", requirePass: true, k: 1, minPassHatK: 1, updatedAt: 1 });
      await appTests.putSettings({ appId: "a1", requirePass: false, k: 5, minPassHatK: 0.75, updatedAt: 2 });
      expect(await appTests.settings("a1")).toEqual({
        appId: "a1",
        requirePass: false,
        k: 5,
        minPassHatK: 0.75,
        updatedAt: 2,
      });
      await appTests.recordOverride({
        id: "o1",
        appId: "a1",
        version: 2,
        reason: "hotfix",
        by: "key-1",
        failing: ["refund"],
        at: 5,
      });
      await appTests.recordOverride({
        id: "o2",
        appId: "a1",
        version: 3,
        reason: "known flake ✓",
        by: "cli",
        failing: [],
        at: 9,
      });
      await appTests.recordOverride({
        id: "o3",
        appId: "a2",
        version: 1,
        reason: "x",
        by: "cli",
        failing: ["a", "b"],
        at: 1,
      });
      expect((await appTests.overrides("a1")).map((o) => o.id)).toEqual(["o2", "o1"]);
      expect((await appTests.overrides("a1"))[1]).toEqual({
        id: "o1",
        appId: "a1",
        version: 2,
        reason: "hotfix",
        by: "key-1",
        failing: ["refund"],
        at: 5,
      });
      await appTests.addCase(refund);
      await appTests.deleteApp("a1");
      expect(await appTests.listCases("a1")).toEqual([]);
      expect(await appTests.settings("a1")).toBeUndefined();
      expect(await appTests.overrides("a1")).toEqual([]);
      expect((await appTests.overrides("a2")).map((o) => o.id)).toEqual(["o3"]);
    }));

  it("app tests: a cached model answer is kept under its key; the first recorded answer stays", () =>
    withStores(target, async ({ appTests }) => {
      expect(await appTests.cachedAnswer("k1")).toBeUndefined();
      const answer = {
        text: "hello ✓",
        toolCalls: [],
        usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
      };
      await appTests.cacheAnswer("k1", answer, 1);
      await appTests.cacheAnswer("k1", { text: "later" }, 2);
      expect(await appTests.cachedAnswer("k1")).toEqual(answer);
    }));

  if (target.openAgain)
    it("app tests: cases written by one connection are read by another", async () => {
      const a = await target.open();
      try {
        await a.appTests.addCase(refund);
        const b = await target.openAgain!();
        try {
          expect(await b.appTests.getCase("a1", "c1")).toEqual(refund);
        } finally {
          await b.close();
        }
      } finally {
        await a.close();
      }
    });
}
