/** WorfEval worked examples (hand computations in comments) and edge cases, both modes. */
import { describe, expect, it } from "vitest";
import { MetricInputError } from "../../src/eval/metrics/errors.js";
import { bowCosineV1, similarityMatrix, tokenCharCosine } from "../../src/eval/metrics/similarity.js";
import { parseWorfbenchText, type WorfGraph } from "../../src/eval/metrics/worf-graph.js";
import { evaluateWorf, lisMatched } from "../../src/eval/metrics/worfeval.js";
import { readCorpusJson } from "./corpus.js";

const wf = (nodes: string[], edges: string) =>
  `Node:\n${nodes.map((t, i) => `${i + 1}: ${t}`).join("\n")}\nEdge: ${edges}`;

describe("WorfBench text parser", () => {
  it("numbers nodes by appearance, adds START/END, maps START→0 and END→last", () => {
    const g = parseWorfbenchText("Node:\n7: open file\n3. read file\nEdge: (START,7) (7, 3) ( 3 ,END)");
    // Printed numbers 7 and 3 are ignored for node ids: nodes get 1 and 2, but edge indices stay literal.
    expect(g).toEqual({
      nodes: ["START", "open file", "read file", "END"],
      edges: [
        [0, 7],
        [7, 3],
        [3, 3],
      ],
    });
  });

  it("returns null without 'Node' or without edges; ignores (1,START)", () => {
    expect(parseWorfbenchText("1: a\nEdge: (START,1) (1,END)")).toBeNull();
    expect(parseWorfbenchText("Node:\n1: a\n2: b")).toBeNull();
    expect(parseWorfbenchText("Node:\n1: a\nEdge: (1,START)")).toBeNull();
  });

  it("picks up numbered lines anywhere (upstream Q6) and keeps a Finish node (Q8)", () => {
    const g = parseWorfbenchText("Node:\n1: search\n2: Finish\nEdge: (START,1) (1,2) (2,END)\nNote: 1. remember this");
    expect(g!.nodes).toEqual(["START", "search", "Finish", "remember this", "END"]);
  });

  it("parses every staged gold sample of all 9 tasks", () => {
    const files = [
      "alfworld",
      "intercodesql",
      "lumos",
      "seal_tools",
      "toolalpaca",
      "toolbench",
      "webshop",
      "wikihow",
    ].map((t) => `${t}_sample`);
    let n = 0;
    for (const f of [...files, "os_full"]) {
      const recs = readCorpusJson<Array<{ conversations: Array<{ content: string }> }>>(
        `worfbench/gold_samples/${f}.json`,
      );
      for (const r of recs) {
        const g = parseWorfbenchText(r.conversations[r.conversations.length - 1]!.content);
        expect(g).not.toBeNull();
        expect(g!.nodes[0]).toBe("START");
        expect(g!.nodes[g!.nodes.length - 1]).toBe("END");
        n++;
      }
    }
    expect(n).toBe(54);
  });
});

describe("similarities", () => {
  it("bow_cosine_v1: |A∩B|/sqrt(|A||B|) on lowercase [a-z0-9]+ sets", () => {
    // {go,to,toilet} vs {go,to,sink}: 2 / sqrt(3·3) = 2/3
    expect(bowCosineV1.score!("Go to toilet", "go to SINK")).toBeCloseTo(2 / 3, 15);
    expect(bowCosineV1.score!("!!!", "go")).toBe(0);
  });

  it("token_char3_cosine_v1 worked example", () => {
    // normalised: "open the file" / "open file".
    // tokens: {open,the,file}·{open,file} = 2 → 2/(√3·√2) = 2/√6.
    // trigrams of " open the file " (13) and " open file " (9) share
    // " op","ope","pen","en "," fi","fil","ile","le " = 8 → 8/√(13·9) = 8/√117.
    const expected = (2 / Math.sqrt(6) + 8 / Math.sqrt(117)) / 2;
    expect(tokenCharCosine.score!("Open the FILE!", "open   file")).toBeCloseTo(expected, 12);
    expect(tokenCharCosine.score!("Ｏｐｅｎ-file", "open file")).toBe(1); // NFKC folds full-width letters
    expect(tokenCharCosine.score!("", "x")).toBe(0);
  });
});

describe("paper f1_chain: the maximum over every gold order", () => {
  it("finds the best of > 20 orders that the first orders and a sample miss", async () => {
    // a1→c3, b2→{c3,e5,g7}, c3→f6, e5→f6, d4 free: more than 20 orders. Pred lists a1 b2 g7 f6 e5 d4 c3.
    // f6 is listed before c3 and e5, which the gold puts before it, so f6 cannot join them; dropping f6
    // leaves a1 b2 g7 e5 d4 c3, consistent with the order a1 b2 g7 e5 d4 c3 f6 → 6 of 7 both ways, F = 6/7.
    // The sampled-order method this replaces scored 5/7.
    const gold: WorfGraph = {
      nodes: ["START", "a1", "b2", "c3", "d4", "e5", "f6", "g7", "END"],
      edges: [
        [1, 3],
        [2, 3],
        [2, 5],
        [2, 7],
        [3, 6],
        [5, 6],
        [0, 1],
        [0, 2],
        [0, 4],
        [4, 8],
        [6, 8],
        [7, 8],
      ],
    };
    const order = ["a1", "b2", "g7", "f6", "e5", "d4", "c3"];
    const pred: WorfGraph = {
      nodes: ["START", ...order, "END"],
      edges: [
        [0, 1],
        [1, 8],
      ],
    };
    const r = await evaluateWorf(pred, gold, { mode: "paper", similarity: bowCosineV1 });
    expect(r.chain).toMatchObject({ exact: true, correct: 6 });
    expect(r.chain.f1).toBeCloseTo(6 / 7, 15);
    expect(r.chain.ordersUsed[0]).toEqual([1, 2, 7, 5, 4, 3, 6]);
    expect(r.chain.alignment!.map(([p]) => pred.nodes[p])).toEqual(["a1", "b2", "g7", "e5", "d4", "c3"]);
  });

  it("duplicate texts: each order gets its own correspondence (LCS), not one fixed matching", async () => {
    // gold: toilet → soap → toilet; pred: soap, toilet. The pred toilet is the gold's second toilet:
    // 2 in common → P = 1, R = 2/3, F = 0.8. A fixed matching that pairs it with the first toilet gave 0.4.
    const gold = wf(["go to toilet", "take soap", "go to toilet"], "(START,1) (1,2) (2,3) (3,END)");
    const pred = wf(["take soap", "go to toilet"], "(START,1) (1,2) (2,END)");
    const r = await evaluateWorf(pred, gold, { mode: "paper", similarity: bowCosineV1 });
    expect(r.chain.correct).toBe(2);
    expect(r.chain.f1).toBeCloseTo(0.8, 15);
    expect(r.chain.alignment).toEqual([
      [1, 2],
      [2, 3],
    ]);
  });

  it("a pred node close to two gold nodes takes the one that fits the order", async () => {
    // gold: {bravo, foxtrot} → delta; "delta alpha" and "alpha echo" free. pred: delta, alpha foxtrot,
    // alpha, bravo. bow cosine ≥ 0.6: delta~delta (1), delta~"delta alpha" (.71), "alpha foxtrot"~foxtrot
    // (.71), alpha~"delta alpha" and ~"alpha echo" (.71), bravo~bravo (1). Taking delta = "delta alpha":
    // order "delta alpha", foxtrot, "alpha echo", bravo, delta → 4 in common: P = 1, R = 4/5, F = 8/9.
    // The heaviest matching pairs delta with delta, which must follow bravo and foxtrot: 3 → F = 2/3.
    const gold: WorfGraph = {
      nodes: ["START", "bravo", "foxtrot", "delta alpha", "alpha echo", "delta", "END"],
      edges: [
        [1, 5],
        [2, 5],
        [0, 1],
        [0, 2],
        [0, 3],
        [3, 6],
        [0, 4],
        [4, 6],
        [5, 6],
      ],
    };
    const pred: WorfGraph = {
      nodes: ["START", "delta", "alpha foxtrot", "alpha", "bravo", "END"],
      edges: [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 4],
        [4, 5],
      ],
    };
    const r = await evaluateWorf(pred, gold, { mode: "paper", similarity: bowCosineV1 });
    expect(r.chain.correct).toBe(4);
    expect(r.chain.f1).toBeCloseTo(8 / 9, 15);
  });

  it("equals a brute force over every order and every common subsequence (random DAGs)", async () => {
    let seed = 20;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const words = ["alpha", "bravo", "charlie", "delta", "echo"];
    const phrase = () =>
      rnd() < 0.5 ? words[Math.floor(rnd() * 5)]! : `${words[Math.floor(rnd() * 5)]} ${words[Math.floor(rnd() * 5)]}`;
    // bow_cosine_v1 written out again: |A∩B| / √(|A|·|B|) over sets of lowercase [a-z0-9]+ tokens.
    const bow = (x: string, y: string) => {
      const A = new Set(x.toLowerCase().match(/[a-z0-9]+/g) ?? []);
      const B = new Set(y.toLowerCase().match(/[a-z0-9]+/g) ?? []);
      return A.size && B.size ? [...A].filter((w) => B.has(w)).length / Math.sqrt(A.size * B.size) : 0;
    };
    const lcs = (a: string[], b: string[], eq: (x: string, y: string) => boolean) => {
      const L = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++)
          L[i]![j] = eq(a[i - 1]!, b[j - 1]!) ? L[i - 1]![j - 1]! + 1 : Math.max(L[i - 1]![j]!, L[i]![j - 1]!);
      return L[a.length]![b.length]!;
    };
    const orders = (k: number, edges: Array<[number, number]>): number[][] => {
      const out: number[][] = [];
      const go = (placed: number[], left: Set<number>) => {
        if (left.size === 0) return void out.push(placed);
        for (const v of left)
          if (edges.every(([a, b]) => b !== v || !left.has(a)))
            go([...placed, v], new Set([...left].filter((x) => x !== v)));
      };
      go([], new Set(Array.from({ length: k }, (_, i) => i)));
      return out;
    };
    let wide = 0;
    for (let t = 0; t < 60; t++) {
      const k = 3 + Math.floor(rnd() * 4);
      const body = Array.from({ length: k }, phrase);
      const edges: Array<[number, number]> = [];
      for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) if (rnd() < 0.25) edges.push([i, j]);
      const predBody = Array.from({ length: 2 + Math.floor(rnd() * 4) }, phrase);
      const eq = (x: string, y: string) => bow(x, y) >= 0.6;
      const all = orders(k, edges);
      if (all.length > 20) wide++;
      const truth = Math.max(
        ...all.map((o) =>
          lcs(
            predBody,
            o.map((i) => body[i]!),
            eq,
          ),
        ),
      );
      const gold: WorfGraph = {
        nodes: ["START", ...body, "END"],
        edges: [
          ...edges.map(([a, b]) => [a + 1, b + 1] as [number, number]),
          ...body.map((_, i) => [0, i + 1] as [number, number]),
          ...body.map((_, i) => [i + 1, k + 1] as [number, number]),
        ],
      };
      const pred: WorfGraph = { nodes: ["START", ...predBody, "END"], edges: [[0, 1]] };
      const r = await evaluateWorf(pred, gold, { mode: "paper", similarity: bowCosineV1 });
      expect(r.chain.exact).toBe(true);
      expect(r.chain.correct, JSON.stringify({ body, edges, predBody })).toBe(truth);
    }
    expect(wide).toBeGreaterThan(5);
  });

  it("over budget, the guided order breaks matching ties towards similar positions", async () => {
    // Duplicate "go to toilet" nodes among 5 parallel branches (120 orders). nx-blossom alone pairs the
    // first pred toilet with the last gold one; the tie rule keeps them in listing order.
    const gold = wf(
      ["go to toilet", "take soap", "go to toilet", "open drawer", "close drawer"],
      "(START,1) (START,2) (START,3) (START,4) (START,5) (1,END) (2,END) (3,END) (4,END) (5,END)",
    );
    const pred = wf(["go to toilet", "take soap", "go to toilet", "open drawer", "close drawer"], "(START,1) (1,END)");
    const r = await evaluateWorf(pred, gold, {
      mode: "paper",
      similarity: bowCosineV1,
      matcher: "nx-blossom",
      chainMaxStates: 3,
    });
    expect(r.chain.exact).toBe(false);
    expect(r.chain.ordersUsed[0]).toEqual([1, 2, 3, 4, 5]);
    expect(r.chain.f1).toBe(1);
  });
});

describe("WorfEval worked examples", () => {
  const gold = wf(["open file", "read file", "close file"], "(START,1) (1,2) (2,3) (3,END)");
  const reversed = wf(["close file", "read file", "open file"], "(START,1) (1,2) (2,3) (3,END)");

  it("reversed chain: chain 1/3 in both modes; upstream graph 1.0 (Q3), paper MCIS 3/5", async () => {
    // bow: "open file" vs "read file" = 1/√4 = 0.5 ≤ 0.6, so only identical texts match.
    // chain: pred [close, read, open] → gold positions [2,1,0]; longest increasing run = 1
    //   → P = 1/3, R = 1/3, F = 1/3.
    // upstream graph: all 5 nodes matched; pred edges (0,1)(1,2)(2,3)(3,4) equal gold edges as raw
    //   index pairs → LCC 5 on both sides → 1.0 although the order is reversed.
    // paper graph: φ = S→S, close→close(g3), read→g2, open→g1, E→E is forced. Every pred edge maps to a
    //   gold non-edge or a reversed edge; consistent pairs are {S,read},{S,E},{close,open},{read,E}; the
    //   largest all-consistent set is {S, read, E} (size 3; no edges inside) → P = R = 3/5.
    const up = await evaluateWorf(reversed, gold, { mode: "upstream", similarity: bowCosineV1 });
    expect(up.chain).toMatchObject({ precision: 1 / 3, recall: 1 / 3, correct: 1 });
    expect(up.chain.f1).toBeCloseTo(1 / 3, 15);
    expect(up.graph.f1).toBe(1);
    const pa = await evaluateWorf(reversed, gold, { mode: "paper", similarity: bowCosineV1 });
    expect(pa.chain.f1).toBeCloseTo(1 / 3, 15);
    expect(pa.graph).toMatchObject({ predCommon: 3, algorithm: "mcis", exact: true });
    expect(pa.graph.f1).toBeCloseTo(0.6, 15);
    // Connected variant: no pred edge survives, so the largest connected common part is 1 node → 1/5.
    const pc = await evaluateWorf(reversed, gold, {
      mode: "paper",
      similarity: bowCosineV1,
      mcis: { connected: true },
    });
    expect(pc.graph.algorithm).toBe("mcis-connected");
    expect(pc.graph.f1).toBeCloseTo(0.2, 15);
    expect(up.similarity).toBe("bow_cosine_v1");
    expect(up.matcher).toBe("nx-blossom");
    expect(pa.matcher).toBe("hungarian");
  });

  it("identical graphs score 1.0 in both modes, incl. parallel branches", async () => {
    const g = wf(
      ["search flights", "search hotels", "compare prices", "book trip"],
      "(START,1) (START,2) (1,3) (2,3) (3,4) (4,END)",
    );
    for (const mode of ["upstream", "paper"] as const) {
      const r = await evaluateWorf(g, g, { mode });
      expect(r.similarity).toBe("token_char3_cosine_v1");
      expect([r.chain.f1, r.graph.f1]).toEqual([1, 1]);
    }
  });

  it("upstream Q1: a ≥10-node gold copied exactly scores chain recall 8/10; paper mode gives 1.0", async () => {
    const names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
    const g = wf(
      names,
      `(START,1) ${names
        .slice(1)
        .map((_, i) => `(${i + 1},${i + 2})`)
        .join(" ")} (8,END)`,
    );
    // 10 nodes incl. START/END → the only gold order is the raw list incl. START/END (length 10).
    // pred has 8 nodes, all matched in order → correct 8; P = 8/8, R = 8/10, F = 2·0.8/1.8 = 0.888…
    const up = await evaluateWorf(g, g, { mode: "upstream", similarity: bowCosineV1 });
    expect(up.chain.precision).toBe(1);
    expect(up.chain.recall).toBe(0.8);
    expect(up.chain.f1).toBeCloseTo(16 / 18, 15);
    const pa = await evaluateWorf(g, g, { mode: "paper", similarity: bowCosineV1 });
    expect(pa.chain.f1).toBe(1);
  });

  it("upstream Q2: zero matches still give LIS 1; paper mode gives 0", async () => {
    const gold2 = wf(["alpha", "bravo"], "(START,1) (1,2) (2,END)");
    const pred = wf(["xray", "yankee", "zulu"], "(START,1) (1,2) (2,3) (3,END)");
    // upstream: correct = 1 → P = 1/3, R = 1/2, F = 2·(1/6)/(5/6) = 0.4
    const up = await evaluateWorf(pred, gold2, { mode: "upstream", similarity: bowCosineV1 });
    expect(up.chain.f1).toBeCloseTo(0.4, 15);
    const pa = await evaluateWorf(pred, gold2, { mode: "paper", similarity: bowCosineV1 });
    expect(pa.chain.f1).toBe(0);
  });

  it("parallel branches with 120 topological orders: upstream tries only the first 20 (Q5)", async () => {
    // START → {alpha..echo} → END: 5! = 120 orders. networkx emits the most recently freed vertex first, so
    // all of the first 24 orders start with echo (node 5); [5,1,2,3,4] is the 24th. pred lists alpha..echo.
    // Within the first 20, the best increasing run has length 3 (e.g. order 5,3,1,2,4 → positions
    // [2,3,1,4,0] → 2,3,4). So upstream P = R = F = 3/5.
    const names = ["alpha", "bravo", "charlie", "delta", "echo"];
    const gold5 = wf(
      names,
      `${names.map((_, i) => `(START,${i + 1})`).join(" ")} ${names.map((_, i) => `(${i + 1},END)`).join(" ")}`,
    );
    const pred = wf(names, "(START,1) (1,2) (2,3) (3,4) (4,5) (5,END)");
    const up = await evaluateWorf(pred, gold5, { mode: "upstream", similarity: bowCosineV1 });
    expect(up.chain.ordersUsed).toHaveLength(20);
    expect(up.chain.ordersUsed[0]).toEqual([5, 4, 3, 2, 1]);
    expect(up.chain.f1).toBeCloseTo(0.6, 15);
    // Paper mode: the maximum over all 120 orders, computed exactly: alpha..echo → 1.0.
    const a = await evaluateWorf(pred, gold5, { mode: "paper", similarity: bowCosineV1 });
    expect(a.chain).toMatchObject({ exact: true, ordersSampled: false, f1: 1, correct: 5 });
    expect(a.chain.ordersUsed).toEqual([[1, 2, 3, 4, 5]]);
    // A pred listed in reverse: the gold imposes no order among parallel branches → still 1.0.
    const rev = wf([...names].reverse(), "(START,1) (1,2) (2,3) (3,4) (4,5) (5,END)");
    expect((await evaluateWorf(rev, gold5, { mode: "paper", similarity: bowCosineV1 })).chain.f1).toBe(1);
    // Over the search budget: the pred-guided order + 19 orders sampled with a seed, a flagged lower bound.
    const opts = { mode: "paper" as const, similarity: bowCosineV1, seed: 42, chainMaxStates: 10 };
    const s1 = await evaluateWorf(pred, gold5, opts);
    const s2 = await evaluateWorf(pred, gold5, opts);
    expect(s1.chain).toMatchObject({ exact: false, ordersSampled: true });
    expect(s1.chain.ordersUsed).toEqual(s2.chain.ordersUsed);
    expect(new Set(s1.chain.ordersUsed.map((o) => o.join(","))).size).toBe(20);
    for (const o of s1.chain.ordersUsed) expect([...o].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(s1.notes.join(" ")).toMatch(/pred-guided order \+ 19 sampled with seed 42; f1_chain is a lower bound/);
    expect(s1.chain.ordersUsed[0]).toEqual([1, 2, 3, 4, 5]);
  });

  it("duplicate node names: chain 2/3 whichever tie is chosen; paper graph 3/5 (connected: 2/5)", async () => {
    const goldD = wf(["go to toilet", "take soap", "go to toilet"], "(START,1) (1,2) (2,3) (3,END)");
    const predD = wf(["go to toilet", "go to toilet", "take soap"], "(START,1) (1,2) (2,3) (3,END)");
    // chain: the two "go to toilet" preds take gold positions {0,2} in some order, "take soap" → 1:
    //   [0,2,1] or [2,0,1] → longest increasing run 2 → P = R = F = 2/3.
    // paper graph: pred S→t1→t2→soap→E vs gold S→ta→soap→tb→E.
    //   {S,t1,E} ↦ {S,ta,E}: pred S→t1 / gold S→ta, no other edges on either side → consistent, size 3.
    //   No 4-set works: t1,t2 together need adjacent gold t's (ta,tb are not); soap with E needs gold
    //   soap→E (absent); {S,t2,soap,·}: pred S,t2 non-adjacent but gold S→ta. So 3 → P = R = 3/5.
    //   Connected: every 3-set that is connected in pred breaks a relation; {S,t1} or {t2,soap} → 2/5.
    for (const mode of ["upstream", "paper"] as const) {
      const r = await evaluateWorf(predD, goldD, { mode, similarity: bowCosineV1 });
      expect(r.chain.f1, mode).toBeCloseTo(2 / 3, 15);
    }
    const pa = await evaluateWorf(predD, goldD, { mode: "paper", similarity: bowCosineV1 });
    expect(pa.graph.predCommon).toBe(3);
    expect(pa.graph.f1).toBeCloseTo(0.6, 15);
    const pc = await evaluateWorf(predD, goldD, { mode: "paper", similarity: bowCosineV1, mcis: { connected: true } });
    expect(pc.graph.predCommon).toBe(2);
    expect(pc.graph.f1).toBeCloseTo(0.4, 15);
  });

  it("disconnected graphs: upstream LCC and connected MCIS score 3/4, plain MCIS 1.0", async () => {
    // nodes [START, a, b, END], edges START→a→END, b isolated. pred identical.
    const g: WorfGraph = {
      nodes: ["START", "alpha", "bravo", "END"],
      edges: [
        [0, 1],
        [1, 3],
      ],
    };
    // upstream graph: all 4 matched, common edges (0,1),(1,3) → largest component {0,1,3} = 3 → 3/4.
    const up = await evaluateWorf(g, g, { mode: "upstream", similarity: bowCosineV1 });
    expect(up.graph.f1).toBe(0.75);
    // chain: b can sit anywhere among 4 orders; one has alpha before bravo → 1.0.
    expect(up.chain.f1).toBe(1);
    const conn = await evaluateWorf(g, g, { mode: "paper", similarity: bowCosineV1, mcis: { connected: true } });
    expect(conn.graph.f1).toBe(0.75);
    const plain = await evaluateWorf(g, g, { mode: "paper", similarity: bowCosineV1 });
    expect(plain.graph.f1).toBe(1);
  });

  it("empty prediction", async () => {
    const gold3 = wf(["alpha", "bravo"], "(START,1) (1,2) (2,END)");
    // Text with edges but no node lines: pred = [START, END], edges (0,1),(1,1).
    const up = await evaluateWorf("Node:\nEdge: (START,1) (1,END)", gold3, {
      mode: "upstream",
      similarity: bowCosineV1,
    });
    expect(up.chain.f1).toBe(0); // upstream crashes here (Q9)
    expect(up.notes.join(" ")).toMatch(/Q9/);
    // graph: START↔START, END↔END; pred edge (0,1) is not a gold edge among matched gold {0,3} → LCC 1:
    //   P = 1/2, R = 1/4, F = 2·(1/8)/(3/4) = 1/3.
    expect(up.graph.f1).toBeCloseTo(1 / 3, 15);
    const empty: WorfGraph = { nodes: [], edges: [] };
    for (const mode of ["upstream", "paper"] as const) {
      const r = await evaluateWorf(empty, gold3, { mode, similarity: bowCosineV1 });
      expect([r.chain.f1, r.graph.f1], mode).toEqual([0, 0]);
    }
    const unparseable = await evaluateWorf("I cannot do this", gold3, { mode: "paper" });
    expect(unparseable.parseable).toBe(false);
    expect(unparseable.chain.f1 + unparseable.graph.f1).toBe(0);
  });

  it("empty gold: one side empty → 0, both empty → 1 (paper); unparseable gold text is an error", async () => {
    const empty: WorfGraph = { nodes: [], edges: [] };
    const pred: WorfGraph = { nodes: ["alpha"], edges: [] };
    const one = await evaluateWorf(pred, empty, { mode: "paper" });
    expect([one.chain.f1, one.graph.f1]).toEqual([0, 0]);
    const both = await evaluateWorf(empty, empty, { mode: "paper" });
    expect([both.chain.f1, both.graph.f1]).toEqual([1, 1]);
    const up = await evaluateWorf(pred, empty, { mode: "upstream" });
    expect([up.chain.f1, up.graph.f1]).toEqual([0, 0]);
    await expect(evaluateWorf(pred, "no workflow here")).rejects.toBeInstanceOf(MetricInputError);
  });

  it("typed errors for bad structured input and cyclic gold", async () => {
    await expect(
      evaluateWorf({ nodes: ["a"], edges: [[0, 3]] }, { nodes: ["a", "b"], edges: [[0, 5]] }),
    ).rejects.toMatchObject({
      code: "metric.invalid_graph",
    });
    await expect(
      evaluateWorf({ nodes: [1 as unknown as string], edges: [] }, { nodes: ["a"], edges: [] }),
    ).rejects.toMatchObject({
      code: "metric.invalid_graph",
    });
    await expect(
      evaluateWorf(
        { nodes: ["a"], edges: [] },
        {
          nodes: ["a", "b"],
          edges: [
            [0, 1],
            [1, 0],
          ],
        },
        { mode: "paper" },
      ),
    ).rejects.toMatchObject({
      code: "metric.cyclic_graph",
    });
    await expect(
      evaluateWorf({ nodes: ["a"], edges: [] }, { nodes: ["a"], edges: [] }, { mode: "x" as "paper" }),
    ).rejects.toMatchObject({
      code: "metric.invalid_argument",
    });
  });

  it("pluggable embedding similarity (fake embedder) is used and named", async () => {
    const { embeddingSimilarity } = await import("../../src/eval/metrics/similarity.js");
    const vec: Record<string, number[]> = {
      START: [1, 0, 0],
      END: [0, 1, 0],
      "book a flight": [0, 0, 1],
      "reserve a plane ticket": [0, 0.1, 1],
    };
    let calls = 0;
    const sim = embeddingSimilarity(
      async (texts) => {
        calls++;
        return texts.map((t) => vec[t]!);
      },
      { name: "fake-3d" },
    );
    const g: WorfGraph = {
      nodes: ["START", "book a flight", "END"],
      edges: [
        [0, 1],
        [1, 2],
      ],
    };
    const p: WorfGraph = {
      nodes: ["START", "reserve a plane ticket", "END"],
      edges: [
        [0, 1],
        [1, 2],
      ],
    };
    // cos([0,.1,1],[0,0,1]) = 1/√1.01 ≈ 0.995 > 0.6, so the paraphrase matches; token similarity would not.
    const r = await evaluateWorf(p, g, { mode: "paper", similarity: sim });
    expect(r.similarity).toBe("embedding:fake-3d");
    expect([r.chain.f1, r.graph.f1]).toEqual([1, 1]);
    const off = await evaluateWorf(p, g, { mode: "paper" });
    expect(off.chain.f1).toBe(0);
    await similarityMatrix(sim, p.nodes, g.nodes);
    expect(calls).toBe(1); // second matrix came from the cache
    const bad = embeddingSimilarity(async () => [[1, 0]], { name: "bad" });
    await expect(similarityMatrix(bad, ["a", "b"], ["c"])).rejects.toMatchObject({ code: "metric.invalid_embedding" });
  });

  it("lisMatched skips unmatched positions", () => {
    expect(lisMatched([-1, 3, -1, 1, 2, 5])).toBe(3);
    expect(lisMatched([-1, -1])).toBe(0);
  });
});
