import { describe, expect, it } from "vitest";
import { e, end, n, run, start, tt, wf, withCode } from "./helpers.js";

// Dify's studio names cases IF / ELIF n; a generated case id ("71822543-…") tells a reader nothing.
describe("if-else diagnostics name cases as the studio shows them", () => {
  const cond = { variable_selector: ["start", "query"], comparison_operator: "contains", value: "x" };
  const build = (cases: unknown[]) =>
    wf(
      "workflow",
      [
        start(),
        n("if", "if-else", { cases }),
        tt("a", [["q", ["start", "query"]]]),
        tt("b", [["q", ["start", "query"]]]),
        end("end", []),
      ],
      [e("start", "if"), e("if", "a", "71822543-aaaa"), e("if", "b", "false"), e("a", "end"), e("b", "end")],
    );

  it("an empty ELIF is named ELIF 1 with what it does, not by its id", () => {
    const r = run(
      build([
        { case_id: "true", logical_operator: "and", conditions: [cond] },
        { case_id: "71822543-aaaa", logical_operator: "and", conditions: [] },
      ]),
    );
    const [d] = withCode(r, "if_else.empty_case");
    expect(d!.message).toBe("ELIF 1 has no conditions, so it always matches and the branches after it never run");
    expect(d!.message).not.toContain("71822543");
  });

  it("an empty IF joined by or never matches, and says so", () => {
    const r = run(build([{ case_id: "71822543-aaaa", logical_operator: "or", conditions: [] }]));
    expect(withCode(r, "if_else.empty_case")[0]!.message).toBe("IF has no conditions, so it never matches");
  });

  it("a reused case id names the later case", () => {
    const r = run(
      build([
        { case_id: "71822543-aaaa", conditions: [cond] },
        { case_id: "71822543-aaaa", conditions: [cond] },
      ]),
    );
    expect(withCode(r, "if_else.duplicate_case")[0]!.message).toMatch(/^ELIF 1 reuses the case id/);
  });
});

// Dify ids are timestamps ("1776841190697"); messages name the node by its title as the studio shows it.
describe("reference diagnostics name nodes by title", () => {
  const titled = <T extends { id: string }>(id: string, title: string, node: T) => ({ ...node, id, title });

  it("a read of an output the node does not have", () => {
    const r = run(
      wf(
        "workflow",
        [
          start(),
          titled("1776841190697", "Translate", tt("x", [["q", ["start", "query"]]])),
          titled("1776841190700", "Shout", tt("y", [["t", ["1776841190697", "no_such"]]])),
          end("end", []),
        ],
        [e("start", "1776841190697"), e("1776841190697", "1776841190700"), e("1776841190700", "end")],
      ),
    );
    const [d] = withCode(r, "ref.missing_output");
    expect(d!.message).toMatch(/^Translate\.no_such: template-transform node "Translate" has no output "no_such"/);
    expect(d!.message).not.toContain("1776841190697");
  });

  it("a read from outside a container names both by title", () => {
    const body = { ...titled("1003", "Body", tt("b", [["q", ["1001", "item"]]])), parentId: "1001" };
    const r = run(
      wf(
        "workflow",
        [
          start([["items", "array[string]"]]),
          titled(
            "1001",
            "Each item",
            n("it", "iteration", { iterator_selector: ["start", "items"], output_selector: ["1003", "output"] }),
          ),
          titled("1002", "", n("s", "iteration-start", {}, { parentId: "1001" })),
          body,
          titled("1004", "After", tt("a", [["q", ["1003", "output"]]])),
          end("end", []),
        ],
        [e("start", "1001"), e("1002", "1003"), e("1001", "1004"), e("1004", "end")],
      ),
    );
    const [d] = withCode(r, "ref.out_of_scope");
    expect(d!.message).toContain('Body.output: "Body" is inside container "Each item"');
  });
});
