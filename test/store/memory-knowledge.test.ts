/** `:memory:`'s knowledge store opens its SQLite database on first use (start-up of `weft run`, issue 33). */
import { describe, expect, it } from "vitest";
import { LazyMemoryKnowledgeStore } from "../../src/store/memory/knowledge.js";

const chunking = { separator: "\n\n", maxLength: 300, overlap: 30, removeExtraSpaces: true, removeUrlsEmails: false };

describe("the memory store's knowledge bases", () => {
  it("work once first used, and fail after close as a closed database does", async () => {
    const kb = new LazyMemoryKnowledgeStore();
    await kb.createBase({ id: "b", name: "B", chunking });
    expect((await kb.listBases()).map((b) => b.id)).toEqual(["b"]);
    await kb.close();
    await expect(kb.listBases()).rejects.toThrow(/not open/);
  });

  it("closed before any use, a later call fails too (and leaves no database open)", async () => {
    const kb = new LazyMemoryKnowledgeStore();
    await kb.close();
    await expect(kb.getBase("x")).rejects.toThrow(/not open/);
  });
});
