// The knowledge store's part of the store contract (describeStoreContract runs it on every backend): bases,
// documents, full-text search with CJK words, vector search.
import { expect, it } from "vitest";
import { type StoreTarget, withStores } from "./store-target.js";

const chunking = {
  separator: "\n\n",
  maxLength: 300,
  overlap: 30,
  removeExtraSpaces: true,
  removeUrlsEmails: false,
};

export function describeKnowledge(target: StoreTarget): void {
  it("knowledge: bases with their chunking, documents, counts; a taken id and an unknown base are typed errors", () =>
    withStores(target, async ({ knowledge }) => {
      const a = await knowledge.createBase({ id: "kb-a", name: "Policies é", chunking });
      expect(a).toMatchObject({
        id: "kb-a",
        name: "Policies é",
        description: "",
        chunking,
        embeddingModel: null,
        documents: 0,
        chunks: 0,
      });
      const b = await knowledge.createBase({ name: "Second", chunking, embeddingModel: "embed-1" });
      expect(b.id).not.toBe("kb-a");
      await expect(knowledge.createBase({ id: "kb-a", name: "again", chunking })).rejects.toMatchObject({
        code: "kb.exists",
      });
      await expect(
        knowledge.addDocument("nope", { name: "x.md", mimeType: "text/markdown", size: 1 }, [{ content: "x" }]),
      ).rejects.toMatchObject({
        code: "kb.not_found",
      });
      const doc = await knowledge.addDocument(
        "kb-a",
        { name: "refunds.md", mimeType: "text/markdown", size: 42, metadata: { team: "billing" } },
        [{ content: "Refunds are paid within fourteen days." }, { content: "Late returns are refused." }],
      );
      expect(doc).toMatchObject({ baseId: "kb-a", name: "refunds.md", chunks: 2, metadata: { team: "billing" } });
      expect(await knowledge.getBase("kb-a")).toMatchObject({ documents: 1, chunks: 2 });
      // Settings without counts, for searches: the named bases that exist, unknown ids left out.
      const infos = await knowledge.describeBases(["nope", b.id, "kb-a"]);
      expect(infos.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
      expect(infos.find((x) => x.id === b.id)).toEqual({
        id: b.id,
        name: "Second",
        description: "",
        chunking: b.chunking,
        embeddingModel: "embed-1",
        createdAt: b.createdAt,
      });
      expect(await knowledge.describeBases([])).toEqual([]);
      expect((await knowledge.listBases()).map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
      expect((await knowledge.listDocuments("kb-a")).map((d) => d.id)).toEqual([doc.id]);
      // Listed in upload order even when many land in the same millisecond.
      const burst = [doc.id];
      for (let i = 0; i < 30; i++)
        burst.push(
          (
            await knowledge.addDocument(b.id, { name: `d${i}.md`, mimeType: "text/markdown", size: 1 }, [
              { content: "x" },
            ])
          ).id,
        );
      expect((await knowledge.listDocuments(b.id)).map((d) => d.id)).toEqual(burst.slice(1));
      expect(await knowledge.deleteDocument("kb-a", "nope")).toBe(false);
      expect(await knowledge.deleteBase(b.id)).toBe(true);
      expect(await knowledge.getBase(b.id)).toBeUndefined();
      expect(await knowledge.deleteBase(b.id)).toBe(false);
    }));

  it("knowledge: full-text search ranks the matching chunk first, within the named bases, CJK included", () =>
    withStores(target, async ({ knowledge }) => {
      await knowledge.createBase({ id: "one", name: "One", chunking });
      await knowledge.createBase({ id: "two", name: "Two", chunking });
      const d1 = await knowledge.addDocument("one", { name: "pets.md", mimeType: "text/markdown", size: 1 }, [
        { content: "No pets are allowed without the landlord's written consent." },
        { content: "Rent is due on the first day of each month." },
        { content: "退款将在十四天内支付。" },
      ]);
      await knowledge.addDocument("two", { name: "other.md", mimeType: "text/markdown", size: 1 }, [
        { content: "Pets and rent and refunds." },
      ]);
      const hits = await knowledge.searchText(["one"], "are pets allowed?", 5);
      expect(hits[0]).toMatchObject({ baseId: "one", documentId: d1.id, documentName: "pets.md", position: 1 });
      expect(hits[0]!.content).toContain("No pets");
      expect(hits.every((h) => h.baseId === "one")).toBe(true);
      for (const h of hits) expect(h.score).toBeGreaterThan(0);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
      expect((await knowledge.searchText(["one", "two"], "pets", 5)).map((h) => h.baseId).sort()).toEqual([
        "one",
        "two",
      ]);
      expect((await knowledge.searchText(["one"], "退款", 5))[0]?.content).toContain("退款");
      expect(await knowledge.searchText(["one"], "zyzzyva", 5)).toEqual([]);
      // Query syntax is words, never operators.
      expect((await knowledge.searchText(["one"], 'pets" OR NEAR(*', 5))[0]?.content).toContain("No pets");
      expect(await knowledge.searchText(["one"], "pets", 1)).toHaveLength(1);
      await knowledge.deleteDocument("one", d1.id);
      expect(await knowledge.searchText(["one"], "pets", 5)).toEqual([]);
    }));

  it("knowledge: vector search finds the nearest embedded chunks by cosine, best first, within the named bases", () =>
    withStores(target, async ({ knowledge }) => {
      await knowledge.createBase({ id: "vec", name: "Vec", chunking, embeddingModel: "embed-1" });
      await knowledge.createBase({ id: "vec2", name: "Vec2", chunking, embeddingModel: "embed-1" });
      await knowledge.addDocument("vec", { name: "v.md", mimeType: "text/markdown", size: 1 }, [
        { content: "a", embedding: [0.5, -0.25, 1] },
        { content: "b", embedding: [0, 1, 0] },
        { content: "c", embedding: [0.45, -0.2, 1.1] },
      ]);
      await knowledge.addDocument("vec2", { name: "w.md", mimeType: "text/markdown", size: 1 }, [
        { content: "elsewhere", embedding: [0.5, -0.25, 1] },
      ]);
      const got = await knowledge.searchVector(["vec"], [0.5, -0.25, 1], 2);
      expect(got.map((g) => g.content)).toEqual(["a", "c"]);
      expect(got[0]!.score).toBeCloseTo(1, 5);
      expect(got[1]!.score).toBeGreaterThan(0.95);
      expect(got[0]).toMatchObject({ baseId: "vec", documentName: "v.md", position: 1 });
      expect(await knowledge.searchVector(["missing"], [1, 0, 0], 5)).toEqual([]);
      // Hybrid search scores keyword hits the vector index did not return by their stored vectors.
      const vectors = await knowledge.chunkVectors([got[0]!.chunkId, got[1]!.chunkId, "no-such-chunk"]);
      expect([...vectors.keys()].sort()).toEqual([got[0]!.chunkId, got[1]!.chunkId].sort());
      expect([...vectors.get(got[1]!.chunkId)!].map((x) => Math.round(x * 100) / 100)).toEqual([0.45, -0.2, 1.1]);
      expect((await knowledge.chunkVectors([])).size).toBe(0);
      expect((await knowledge.searchVector(["vec", "vec2"], [0.5, -0.25, 1], 5)).map((g) => g.baseId)).toContain(
        "vec2",
      );
    }));

  it("knowledge: vector search at a few thousand chunks returns the true nearest neighbours", () =>
    withStores(target, async ({ knowledge }) => {
      await knowledge.createBase({ id: "many", name: "Many", chunking, embeddingModel: "embed-1" });
      // Deterministic pseudo-random 32-dimensional vectors; the query is a slightly moved copy of one of them.
      let seed = 7;
      const rand = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return (seed / 2147483648) * 2 - 1;
      };
      const vectors = Array.from({ length: 3000 }, () => Array.from({ length: 32 }, rand));
      await knowledge.addDocument(
        "many",
        { name: "many.md", mimeType: "text/markdown", size: 1 },
        vectors.map((v, i) => ({ content: `chunk ${i}`, embedding: v })),
      );
      const query = vectors[1234]!.map((x, i) => x + (i % 2 ? 0.05 : -0.05));
      const got = await knowledge.searchVector(["many"], query, 3);
      expect(got[0]?.content).toBe("chunk 1234");
      expect(got[0]!.score).toBeGreaterThan(0.95);
    }));

  it("knowledge: Chinese and Japanese are indexed as words, so a word query finds its chunk, not one sharing its characters", () =>
    withStores(target, async ({ knowledge }) => {
      await knowledge.createBase({ id: "cjk", name: "CJK", chunking });
      await knowledge.addDocument("cjk", { name: "zh.md", mimeType: "text/markdown", size: 1 }, [
        // Every character of 北京大学 appears here, several times, but never the words 北京 or 大学.
        { content: "京都的学生在北方学习，学习很努力，大家北上学京剧。" },
        { content: "北京大学的历史很悠久。" },
      ]);
      await knowledge.addDocument("cjk", { name: "ja.md", mimeType: "text/markdown", size: 1 }, [
        // 東 and 京 twice each, never the word 東京.
        { content: "京都の東山で東の京菓子を買う。" },
        { content: "東京都に住んでいる会社員です。" },
      ]);
      expect((await knowledge.searchText(["cjk"], "北京大学", 5))[0]?.content).toBe("北京大学的历史很悠久。");
      expect((await knowledge.searchText(["cjk"], "東京", 5))[0]?.content).toBe("東京都に住んでいる会社員です。");
    }));

  it("knowledge: parent-child chunks — children are searched (text and vectors), each hit carries its parent; bad parent typed", () =>
    withStores(target, async ({ knowledge }) => {
      await knowledge.createBase({ id: "pc", name: "PC", chunking, embeddingModel: "embed-1" });
      const parents = [
        "Refund policy.\nRefunds are paid within fourteen days.\nLate returns are refused.",
        "Pet policy.\nNo pets are allowed without written consent.",
      ];
      const doc = await knowledge.addDocument(
        "pc",
        { name: "policy.md", mimeType: "text/markdown", size: 1, parents },
        [
          { content: "Refund policy.", parent: 0, embedding: [1, 0, 0] },
          { content: "Refunds are paid within fourteen days.", parent: 0, embedding: [0.9, 0.1, 0] },
          { content: "Late returns are refused.", parent: 0, embedding: [0.8, 0, 0.2] },
          { content: "Pet policy.", parent: 1, embedding: [0, 1, 0] },
          { content: "No pets are allowed without written consent.", parent: 1, embedding: [0, 0.9, 0.1] },
        ],
      );
      expect(doc.chunks).toBe(5);
      const [hit] = await knowledge.searchText(["pc"], "fourteen days", 5);
      expect(hit).toMatchObject({ content: "Refunds are paid within fourteen days.", position: 2, documentId: doc.id });
      expect(hit!.parent).toMatchObject({ position: 1, content: parents[0] });
      const near = await knowledge.searchVector(["pc"], [0, 1, 0], 1);
      expect(near[0]).toMatchObject({ content: "Pet policy.", parent: { position: 2, content: parents[1] } });
      // Children of one parent name the same parent.
      const both = await knowledge.searchText(["pc"], "refund refunds returns", 5);
      expect(new Set(both.map((h) => h.parent!.id)).size).toBe(1);
      // General chunks carry no parent.
      await knowledge.addDocument("pc", { name: "plain.md", mimeType: "text/markdown", size: 1 }, [
        { content: "fourteen apples" },
      ]);
      expect((await knowledge.searchText(["pc"], "apples", 5))[0]!.parent).toBeUndefined();
      await expect(
        knowledge.addDocument("pc", { name: "bad.md", mimeType: "text/markdown", size: 1, parents: ["one"] }, [
          { content: "x", parent: 1 },
        ]),
      ).rejects.toMatchObject({ code: "kb.invalid_parent" });
      expect((await knowledge.listDocuments("pc")).map((d) => d.name)).toEqual(["policy.md", "plain.md"]);
      await knowledge.deleteDocument("pc", doc.id);
      expect(await knowledge.searchText(["pc"], "fourteen days", 5)).toHaveLength(1);
      expect(await knowledge.searchVector(["pc"], [0, 1, 0.05], 5)).toEqual([]);
    }));

  it("knowledge: the vector index forgets deleted documents and bases and keeps dimensions and bases apart", () =>
    withStores(target, async ({ knowledge }) => {
      await knowledge.createBase({ id: "d3", name: "D3", chunking, embeddingModel: "embed-1" });
      await knowledge.createBase({ id: "d4", name: "D4", chunking, embeddingModel: "embed-2" });
      const a = await knowledge.addDocument("d3", { name: "a.md", mimeType: "text/markdown", size: 1 }, [
        { content: "a1", embedding: [1, 0, 0] },
        { content: "a2", embedding: [0, 1, 0] },
      ]);
      await knowledge.addDocument("d3", { name: "b.md", mimeType: "text/markdown", size: 1 }, [
        { content: "b1", embedding: [0.9, 0.1, 0] },
      ]);
      await knowledge.addDocument("d4", { name: "c.md", mimeType: "text/markdown", size: 1 }, [
        { content: "c1", embedding: [1, 0, 0, 0] },
      ]);
      // The two nearest (PostgreSQL's LSH may not reach the orthogonal a2).
      expect((await knowledge.searchVector(["d3"], [1, 0, 0], 5)).map((h) => h.content).slice(0, 2)).toEqual([
        "a1",
        "b1",
      ]);
      expect((await knowledge.searchVector(["d4"], [1, 0, 0, 0], 5)).map((h) => h.content)).toEqual(["c1"]);
      await knowledge.deleteDocument("d3", a.id);
      expect((await knowledge.searchVector(["d3"], [1, 0, 0], 5)).map((h) => h.content)).toEqual(["b1"]);
      await knowledge.deleteBase("d3");
      await knowledge.createBase({ id: "d3", name: "D3 again", chunking, embeddingModel: "embed-1" });
      expect(await knowledge.searchVector(["d3"], [1, 0, 0], 5)).toEqual([]);
      expect((await knowledge.searchVector(["d4"], [1, 0, 0, 0], 5)).map((h) => h.content)).toEqual(["c1"]);
    }));
}
