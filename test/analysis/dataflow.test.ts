import { describe, expect, it } from "vitest";
import "../../src/nodes/question-classifier.js";
import "../../src/nodes/llm.js";
import { GuardAlgebra, TRUE_GUARD } from "../../src/analysis/guards.js";
import { agg, chain, e, end, errors, ifElse, n, run, show, start, tt, wf, withCode } from "./helpers.js";

const model = { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} };
const classifier = (id: string, classes: string[]) =>
  n(id, "question-classifier", {
    query_variable_selector: ["start", "query"],
    model,
    classes: classes.map((c) => ({ id: c, name: `class ${c}` })),
  });

describe("availability at joins", () => {
  it("nested if-else: inner join sees the inner branch node, outer join does not", () => {
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("if1", ["true"]),
        ifElse("if2", ["true"]),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["q", ["start", "query"]]]),
        end("j1", [["r", ["if2", "result"]]]),
        tt("c", [["q", ["start", "query"]]]),
        end("j2", [
          ["r", ["if1", "result"]],
          ["x", ["if2", "result"]],
        ]),
      ],
      [
        e("start", "if1"),
        e("if1", "if2", "true"),
        e("if1", "c", "false"),
        e("if2", "a", "true"),
        e("if2", "b", "false"),
        e("a", "j1"),
        e("b", "j1"),
        e("j1", "j2"),
        e("c", "j2"),
      ],
    );
    const r = run(w);
    const na = withCode(r, "ref.not_available");
    // j1 sees if2 (it ran on both inner paths); j2 sees if1 but not if2 (skipped when if1 is false).
    expect(
      na.map((d) => [d.nodeId, d.field]),
      show(r),
    ).toEqual([["j2", "outputs[1].value_selector"]]);
  });

  it("a parallel fan-out inside one branch re-joins with union", () => {
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("if", ["true"]),
        tt("p", [["q", ["start", "query"]]]),
        tt("q", [["q", ["start", "query"]]]),
        end("j", [
          ["a", ["p", "output"]],
          ["b", ["q", "output"]],
        ]),
        end("other", [["x", ["start", "query"]]]),
      ],
      [
        e("start", "if"),
        e("if", "p", "true"),
        e("if", "q", "true"),
        e("p", "j"),
        e("q", "j"),
        e("if", "other", "false"),
      ],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("a branch joined with an always-taken edge is not guaranteed", () => {
    const w = wf(
      "workflow",
      [start(), ifElse("if", ["true"]), tt("x", [["q", ["start", "query"]]]), end("j", [["a", ["x", "output"]]])],
      [e("start", "if"), e("if", "x", "true"), e("x", "j"), e("if", "j", "false"), e("start", "j")],
    );
    expect(withCode(run(w), "ref.not_available").map((d) => d.nodeId)).toEqual(["j"]);
  });

  it("question-classifier: every class covered rejoins; a two-class path is still conditional", () => {
    const w = wf(
      "workflow",
      [
        start(),
        classifier("qc", ["1", "2", "3"]),
        tt("x", [["q", ["start", "query"]]]),
        tt("z", [["q", ["start", "query"]]]),
        end("j", [
          ["cls", ["qc", "class_name"]],
          ["x", ["x", "output"]],
        ]),
      ],
      [e("start", "qc"), e("qc", "x", "1"), e("qc", "x", "2"), e("qc", "z", "3"), e("x", "j"), e("z", "j")],
    );
    const r = run(w);
    expect(
      withCode(r, "ref.not_available").map((d) => d.field),
      show(r),
    ).toEqual(["outputs[1].value_selector"]);
    expect(withCode(r, "graph.unreachable")).toEqual([]);
  });

  it("fail-branch: normal outputs exist only on the success path, error outputs only on the failure path", () => {
    const risky = tt("risky", [["q", ["start", "query"]]]);
    risky.config = { ...risky.config, error_strategy: "fail-branch" };
    const w = wf(
      "workflow",
      [
        start(),
        risky,
        end("ok", [
          ["v", ["risky", "output"]],
          ["bad", ["risky", "error_message"]],
        ]),
        end("failed", [
          ["m", ["risky", "error_message"]],
          ["t", ["risky", "error_type"]],
          ["bad", ["risky", "output"]],
        ]),
        tt("after", [["q", ["start", "query"]]]),
        end("j", [
          ["r", ["risky", "error_type"]],
          ["v", ["risky", "output"]],
          ["fine", ["after", "output"]],
        ]),
      ],
      [
        e("start", "risky"),
        e("risky", "ok"),
        e("risky", "failed", "fail-branch"),
        e("risky", "after"),
        e("risky", "after", "fail-branch"),
        e("after", "j"),
      ],
    );
    const r = run(w);
    expect(
      withCode(r, "ref.not_available").map((d) => `${d.nodeId} ${d.field}`),
      show(r),
    ).toEqual([
      "ok outputs[1].value_selector",
      "failed outputs[2].value_selector",
      "j outputs[0].value_selector",
      "j outputs[1].value_selector",
    ]);
  });

  it("fail-branch messages say which path lacks the value", () => {
    const risky = tt("risky", [["q", ["start", "query"]]]);
    risky.config = { ...risky.config, error_strategy: "fail-branch" };
    const w = wf(
      "workflow",
      [start(), risky, end("ok", [["bad", ["risky", "error_message"]]]), end("failed", [["bad", ["risky", "output"]]])],
      [e("start", "risky"), e("risky", "ok"), e("risky", "failed", "fail-branch")],
    );
    const msgs = Object.fromEntries(withCode(run(w), "ref.not_available").map((d) => [d.nodeId, d.message]));
    expect(msgs.failed).toMatch(/only through the fail-branch of "risky"/);
    expect(msgs.ok).toMatch(/only on success/);
  });

  it("path conditions name if-else branches as the canvas shows them (IF, ELIF n, ELSE), never by case id", () => {
    const c1 = "faa33c03-dbfd-4fc5-b85d-11d3a519e455";
    const c2 = "0b6a3f5e-2f7c-4c53-9d0e-6f1f0e0c9a11";
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("route", [c1, c2]),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["q", ["start", "query"]]]),
        end("j", [["x", ["b", "output"]]]),
      ],
      [
        e("start", "route"),
        e("route", "a", c1),
        e("route", "b", c2),
        e("route", "j", "false"),
        e("a", "j"),
        e("b", "j"),
      ],
    );
    const [d] = withCode(run(w), "ref.not_available");
    expect(d?.message).toContain("route takes ELIF 1");
    expect(d?.message).not.toContain(c2);
  });

  it("default-value: outputs exist on every path", () => {
    const risky = tt("risky", [["q", ["start", "query"]]]);
    risky.config = {
      ...risky.config,
      error_strategy: "default-value",
      default_value: [{ key: "output", type: "string", value: "" }],
    };
    const w = wf(
      "workflow",
      [
        start(),
        risky,
        end("end", [
          ["v", ["risky", "output"]],
          ["m", ["risky", "error_message"]],
        ]),
      ],
      chain("start", "risky", "end"),
    );
    expect(errors(run(w))).toEqual([]);
  });

  it("the aggregator's optional alternatives are exempt, its output is always available", () => {
    const w = wf(
      "workflow",
      [
        start(),
        classifier("qc", ["a", "b"]),
        tt("x", [["q", ["start", "query"]]]),
        tt("y", [["q", ["start", "query"]]]),
        agg("m", [
          ["x", "output"],
          ["y", "output"],
        ]),
        end("end", [["out", ["m", "output"]]]),
      ],
      [e("start", "qc"), e("qc", "x", "a"), e("qc", "y", "b"), e("x", "m"), e("y", "m"), e("m", "end")],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("a parallel sibling is never upstream: reading it is a race, a warning (Dify runs it)", () => {
    const w = wf(
      "workflow",
      [
        start(),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["q", ["a", "output"]]]),
        end("end", [
          ["x", ["a", "output"]],
          ["y", ["b", "output"]],
        ]),
      ],
      [e("start", "a"), e("start", "b"), e("a", "end"), e("b", "end")],
    );
    const r = run(w);
    const d = withCode(r, "ref.not_available");
    expect(d.map((x) => [x.nodeId, x.severity])).toEqual([["b", "warning"]]);
  });

  it("falls back to plain intersection beyond the guard bound and stays sound", () => {
    const mk = (opts: { maxGuardTerms: number }) => {
      const w = wf(
        "workflow",
        [
          start(),
          classifier("qc", ["1", "2", "3"]),
          tt("x", [["q", ["start", "query"]]]),
          tt("p", [["q", ["x", "output"]]]),
          tt("q", [["q", ["x", "output"]]]),
          end("j", [
            ["a", ["p", "output"]],
            ["b", ["q", "output"]],
          ]),
          end("other", []),
        ],
        [
          e("start", "qc"),
          e("qc", "x", "1"),
          e("qc", "x", "2"),
          e("qc", "other", "3"),
          e("x", "p"),
          e("x", "q"),
          e("p", "j"),
          e("q", "j"),
        ],
      );
      return run(w, opts);
    };
    // x's guard has two terms (qc=1 or qc=2); p and q share it, so j sees both.
    expect(errors(mk({ maxGuardTerms: 64 }))).toEqual([]);
    // With a bound of 1, x's guard becomes an opaque "x ran" atom: still equal for p and q.
    expect(errors(mk({ maxGuardTerms: 1 }))).toEqual([]);
  });
});

describe("container scoping", () => {
  const iter = (
    bodyReads: Array<[string, string[]]>,
    extraTop: ReturnType<typeof n>[] = [],
    extraEdges: ReturnType<typeof e>[] = [],
  ) =>
    wf(
      "workflow",
      [
        start([["items", "array[string]"]]),
        tt("pre", [["q", ["start", "items"]]]),
        n("it", "iteration", { iterator_selector: ["start", "items"], output_selector: ["body", "output"] }),
        n("itstart", "iteration-start", {}, { parentId: "it" }),
        { ...tt("body", bodyReads, "x"), parentId: "it" },
        ...extraTop,
        end("end", [["out", ["it", "output"]]]),
      ],
      [e("start", "pre"), e("pre", "it"), e("itstart", "body"), ...(extraEdges.length ? extraEdges : [e("it", "end")])],
    );

  it("a body sees what is certain before its container, and the container's item/index", () => {
    const r = run(
      iter([
        ["a", ["it", "item"]],
        ["b", ["it", "index"]],
        ["c", ["pre", "output"]],
      ]),
    );
    expect(errors(r), show(r)).toEqual([]);
  });

  it("a body reading the container's final output is a missing scope value", () => {
    const r = run(iter([["a", ["it", "output"]]]));
    expect(withCode(r, "ref.missing_output").map((d) => d.nodeId)).toEqual(["body"]);
    expect(withCode(r, "ref.missing_output")[0]!.message).toMatch(/only after the container finishes/);
  });

  it("a body reading a node that runs after the container is never available", () => {
    const post = tt("post", [["q", ["it", "output"]]]);
    const w = iter([["a", ["post", "output"]]], [post], [e("it", "post"), e("post", "end")]);
    const r = run(w);
    expect(
      withCode(r, "ref.not_available").map((d) => d.nodeId),
      show(r),
    ).toEqual(["body"]);
  });
});

describe("guard algebra", () => {
  it("completes all ports of a branch back to the enclosing guard", () => {
    const alg = new GuardAlgebra(64);
    alg.declare(1, ["a", "b", "c"]);
    const a = alg.and(TRUE_GUARD, alg.literal(1, "a"));
    const b = alg.and(TRUE_GUARD, alg.literal(1, "b"));
    const c = alg.and(TRUE_GUARD, alg.literal(1, "c"));
    expect(alg.or([a, b])!.terms).toHaveLength(2);
    expect(alg.or([a, b, c])).toBe(TRUE_GUARD);
    alg.declare(2, ["t", "f"]);
    const at = alg.and(a, alg.literal(2, "t"));
    const af = alg.and(a, alg.literal(2, "f"));
    expect(alg.or([at, af])!.key).toBe(a.key);
    // absorption: a ∨ (a ∧ t) = a
    expect(alg.or([a, at])!.key).toBe(a.key);
    // contradictory literal drops the term
    expect(alg.and(a, alg.literal(1, "b")).terms).toEqual([]);
  });

  it("reports overflow beyond the term bound", () => {
    const alg = new GuardAlgebra(2);
    const gs = [0, 1, 2].map((v) => {
      alg.declare(v, ["x", "y"]);
      return alg.and(TRUE_GUARD, alg.literal(v, "x"));
    });
    expect(alg.or(gs)).toBeUndefined();
    expect(alg.or(gs.slice(0, 2))).toBeDefined();
  });
});

describe("join of an always-running node and an if-else branch (the false positive of the held-out run)", () => {
  // start → a (always) → j, and start → if → b (true branch) → j; j reads a. j waits for both edges, and
  // a→j is taken whenever j runs, so a.output exists on every path. The analyser used to say
  // "a.output is not produced on every path: a runs when always, this node when always".
  const w = () =>
    wf(
      "workflow",
      [
        start(),
        tt("a", [["q", ["start", "query"]]]),
        ifElse("if", ["true"]),
        tt("b", [["q", ["start", "query"]]]),
        end("j", [
          ["r", ["a", "output"]],
          ["s", ["if", "result"]],
        ]),
      ],
      [e("start", "a"), e("start", "if"), e("if", "b", "true"), e("b", "j"), e("a", "j"), e("if", "j", "false")],
    );

  it("finds nothing unavailable", () => {
    const r = run(w());
    expect(withCode(r, "ref.not_available"), show(r)).toEqual([]);
    expect(errors(r), show(r)).toEqual([]);
  });

  it("still reports the branch node's output, which exists only when the branch was taken", () => {
    const x = w();
    (x.nodes.find((n) => n.id === "j")!.config.outputs as Array<Record<string, unknown>>).push({
      variable: "t",
      value_selector: ["b", "output"],
    });
    const na = withCode(run(x), "ref.not_available");
    expect(na.map((d) => [d.nodeId, d.field])).toEqual([["j", "outputs[2].value_selector"]]);
  });

  it("stays strict when only branch edges arrive (no edge is taken on every run)", () => {
    const x = wf(
      "workflow",
      [start(), tt("a", [["q", ["start", "query"]]]), ifElse("if", ["true"]), end("j", [["r", ["a", "output"]]])],
      [e("start", "if"), e("if", "a", "true"), e("a", "j"), e("if", "j", "false")],
    );
    expect(withCode(run(x), "ref.not_available").map((d) => d.nodeId)).toEqual(["j"]);
  });
});

describe("reads across parallel branches (issue 35, item 11)", () => {
  // start forks into a and b at once; b's branch reads a's output. Dify runs b whether or not a finished.
  const parallel = (extra: ReturnType<typeof e>[] = []) =>
    wf(
      "workflow",
      [
        start(),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["x", ["a", "output"]]]),
        end("end", [["r", ["b", "output"]]]),
      ],
      [e("start", "a"), e("start", "b"), e("b", "end"), ...extra],
    );

  it("is a warning that explains the race, not an error", () => {
    const r = run(parallel());
    const na = withCode(r, "ref.not_available");
    expect(
      na.map((d) => [d.nodeId, d.severity]),
      show(r),
    ).toEqual([["b", "warning"]]);
    expect(na[0]!.message).toContain('runs in parallel with "b" (both start at "start")');
    expect(na[0]!.message).toContain('only when "a" finishes before "b" runs');
    expect(errors(r)).toEqual([]);
  });

  it("joining the branches makes the read certain: no finding", () => {
    expect(withCode(run(parallel([e("a", "b")])), "ref.not_available")).toEqual([]);
  });

  it("a value of an exclusive branch (the other if-else case) is still an error", () => {
    const w = wf(
      "workflow",
      [
        start(),
        ifElse("if1", ["true"]),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["x", ["a", "output"]]]),
        end("end", [["r", ["b", "output"]]]),
      ],
      [e("start", "if1"), e("if1", "a", "true"), e("if1", "b", "false"), e("b", "end")],
    );
    const na = withCode(run(w), "ref.not_available");
    expect(na.map((d) => [d.nodeId, d.severity])).toEqual([["b", "error"]]);
    expect(na[0]!.message).toContain("never exists");
  });

  it("a value written downstream of its reader is still an error", () => {
    const w = wf(
      "workflow",
      [
        start(),
        tt("b", [["x", ["a", "output"]]]),
        tt("a", [["q", ["start", "query"]]]),
        end("end", [["r", ["a", "output"]]]),
      ],
      [e("start", "b"), e("b", "a"), e("a", "end")],
    );
    expect(withCode(run(w), "ref.not_available").map((d) => d.severity)).toEqual(["error"]);
  });
});
