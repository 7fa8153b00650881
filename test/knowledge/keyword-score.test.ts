import { describe, expect, it } from "vitest";
import { keywordScores } from "../../src/knowledge/keyword-score.js";

describe("keyword score of hybrid search (Dify's weighted_score, TF-IDF cosine over the candidates)", () => {
  it("scores by shared keywords weighted by their rarity among the candidates, in [0, 1]", () => {
    const [exact, partial, none, common] = keywordScores("security deposit returned", [
      "security deposit returned",
      "the security deposit amount is stated in section three of this lease",
      "the wolf huffed and puffed",
      "security is everywhere",
    ]);
    expect(exact).toBeCloseTo(1, 10);
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(exact!);
    expect(none).toBe(0);
    // "security" is in three of four candidates, "deposit" in two: the shared rarer word weighs more.
    expect(partial).toBeGreaterThan(common!);
  });

  it("ignores stop words, one-letter words and case; CJK text is split into words", () => {
    const [a, b] = keywordScores("The DEPOSIT", ["deposit of the tenant", "of the a"]);
    expect(a).toBeGreaterThan(0);
    expect(b).toBe(0);
    const [zh, other] = keywordScores("惯性", ["理解惯性的概念", "牛顿第一定律"]);
    expect(zh).toBeGreaterThan(0);
    expect(other).toBe(0);
  });

  it("gives 0 when the query has no keyword or there are no candidates", () => {
    expect(keywordScores("the of", ["the tenant"])).toEqual([0]);
    expect(keywordScores("deposit", [])).toEqual([]);
  });
});
