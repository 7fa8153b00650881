/**
 * If-else conformance with Dify's condition processor (DIFY.md §2.7): every operator, null / falsy
 * handling, the missing-variable failure, and/or short-circuit, first-true-case-wins, templated
 * expected values, boolean variables, and file-array sub-conditions.
 *
 * Known leniency kept on purpose (not asserted as Dify): Weft parses a numeric string actual for
 * `>`/`<`/`≥`/`≤` and compares `is` on numbers, where Dify raises "Invalid actual value type".
 */
import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { type Condition, compare, evaluateConditions } from "../../src/nodes/conditions.js";
import { buildWorkflow, tpl } from "../support/build.js";

/** [actual, operator, expected, Dify's result or "throws"] */
const TABLE: Array<[unknown, string, unknown, boolean | "throws"]> = [
  // contains / not contains: substring or membership; a falsy actual gives false / true
  ["hello world", "contains", "lo w", true],
  ["hello", "contains", "xyz", false],
  [["a", "b"], "contains", "b", true],
  [["a", "b"], "contains", "c", false],
  ["", "contains", "x", false],
  [null, "contains", "x", false],
  [[], "contains", "x", false],
  [5, "contains", "5", "throws"],
  ["abc", "not contains", "d", true],
  ["abc", "not contains", "b", false],
  [["a"], "not contains", "a", false],
  [null, "not contains", "x", true],
  ["", "not contains", "x", true],
  [[], "not contains", "x", true],
  // start with / end with: strings only
  ["hello", "start with", "he", true],
  ["hello", "start with", "lo", false],
  ["hello", "end with", "lo", true],
  ["hello", "end with", "he", false],
  ["", "start with", "x", false],
  [null, "end with", "x", false],
  [5, "start with", "5", "throws"],
  // is / is not: equality; null gives false for both
  ["a", "is", "a", true],
  ["a", "is", "b", false],
  [null, "is", "", false],
  ["a", "is not", "b", true],
  ["a", "is not", "a", false],
  [null, "is not", "x", false],
  [true, "is", "true", true],
  [false, "is", "false", true],
  [true, "is", "false", false],
  // empty / not empty: Python truthiness
  ["", "empty", undefined, true],
  [[], "empty", undefined, true],
  [{}, "empty", undefined, true],
  [null, "empty", undefined, true],
  [0, "empty", undefined, true],
  ["x", "empty", undefined, false],
  [[0], "empty", undefined, false],
  ["x", "not empty", undefined, true],
  [[], "not empty", undefined, false],
  [null, "not empty", undefined, false],
  // in / not in: the expected value is a list; a falsy actual gives false / true
  ["b", "in", ["a", "b"], true],
  ["c", "in", ["a", "b"], false],
  [null, "in", ["a"], false],
  ["", "in", [""], false],
  ["c", "not in", ["a", "b"], true],
  ["a", "not in", ["a", "b"], false],
  [null, "not in", ["a"], true],
  ["", "not in", [""], true],
  // all of: every expected item is in the actual value
  [["a", "b", "c"], "all of", ["a", "b"], true],
  [["a"], "all of", ["a", "b"], false],
  ["abc", "all of", ["a", "c"], true],
  [null, "all of", ["a"], false],
  [[], "all of", [], false],
  // numbers: an expected string is parsed; null gives false; = / ≠ on a string actual is an error
  [5, "=", "5", true],
  [5, "=", 5, true],
  [5.5, "=", "5.5", true],
  [5, "=", "6", false],
  [null, "=", "1", false],
  ["5", "=", "5", "throws"],
  ["5", "≠", "5", "throws"],
  [5, "≠", "6", true],
  [5, "≠", "5", false],
  [null, "≠", "1", false],
  [5, ">", "3", true],
  [3, ">", "3", false],
  [2, "<", "3", true],
  [3, "<", "3", false],
  [3, "≥", "3", true],
  [2, "≥", "3", false],
  [3, "≤", "3", true],
  [4, "≤", "3", false],
  [null, ">", "1", false],
  [null, "≤", "1", false],
  // booleans compare with = / ≠ (the expected string is JSON-parsed for a boolean variable)
  [true, "=", "true", true],
  [false, "=", "true", false],
  [true, "≠", "false", true],
  // nullness
  [null, "null", undefined, true],
  ["", "null", undefined, false],
  [0, "null", undefined, false],
  ["", "not null", undefined, true],
  [null, "not null", undefined, false],
  [0, "exists", undefined, true],
  [null, "exists", undefined, false],
  [null, "not exists", undefined, true],
  ["x", "not exists", undefined, false],
  // the ASCII spellings generation models write are the same operators
  [5, ">=", "5", true],
  [5, "!=", "4", true],
];

describe("condition operators (Dify utils/condition/processor.py)", () => {
  for (const [actual, op, expected, want] of TABLE) {
    it(`${JSON.stringify(actual)} ${op} ${JSON.stringify(expected)} → ${want}`, () => {
      if (want === "throws")
        expect(() => compare(actual, op, expected)).toThrow(expect.objectContaining({ code: "condition.bad_operand" }));
      else expect(compare(actual, op, expected)).toBe(want);
    });
  }

  it("an unknown operator is a typed error", () => {
    expect(() => compare("a", "looks like", "b")).toThrow(
      expect.objectContaining({ code: "condition.unknown_operator" }),
    );
  });

  it("and / or short-circuit: a later condition on a missing variable is never read", () => {
    const values: Record<string, unknown> = { "n.x": "yes" };
    const reads: string[] = [];
    const env = {
      read: (sel: readonly string[]) => {
        reads.push(sel.join("."));
        const k = sel.join(".");
        return k in values ? { found: true, value: values[k] } : { found: false };
      },
      render: (t: string) => t,
    };
    const first = (v: string): Condition => ({ variable_selector: ["n", "x"], comparison_operator: "is", value: v });
    const missing: Condition = { variable_selector: ["gone", "y"], comparison_operator: "is", value: "z" };
    expect(evaluateConditions([first("no"), missing], "and", env)).toBe(false);
    expect(evaluateConditions([first("yes"), missing], "or", env)).toBe(true);
    expect(reads).toEqual(["n.x", "n.x"]);
    expect(() => evaluateConditions([first("yes"), missing], "and", env)).toThrow(
      expect.objectContaining({ code: "condition.missing_variable" }),
    );
  });
});

const start = {
  id: "start",
  type: "start",
  variables: [
    { variable: "x", type: "text-input" },
    { variable: "n", type: "number" },
    { variable: "limit", type: "number" },
    { variable: "flag", type: "checkbox" },
  ],
};

/** if-else → one template per port → aggregator → end, so the output names the port taken. */
function branching(ifElse: Record<string, unknown>, ports: string[]) {
  return buildWorkflow({
    nodes: [
      start,
      { id: "if", type: "if-else", ...ifElse },
      ...ports.map((p) => tpl(`b_${p}`, p)),
      { id: "agg", type: "variable-aggregator", variables: ports.map((p) => [`b_${p}`, "output"]) },
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "port", value_selector: ["agg", "output"] },
          { variable: "case", value_selector: ["if", "selected_case_id"] },
          { variable: "result", value_selector: ["if", "result"] },
        ],
      },
    ],
    edges: [
      ["start", "if"],
      ...ports.map((p) => ["if", p, `b_${p}`] as [string, string, string]),
      ...ports.map((p) => [`b_${p}`, "agg"] as [string, string]),
      ["agg", "end"],
    ],
  });
}

const cond = (sel: string[], op: string, value?: unknown) => ({
  variable_selector: sel,
  comparison_operator: op,
  value,
});

describe("if-else node", () => {
  it("tries cases in order and the first true case wins; none true takes `false`", async () => {
    const wf = branching(
      {
        cases: [
          { case_id: "big", logical_operator: "and", conditions: [cond(["start", "n"], ">", "100")] },
          { case_id: "mid", logical_operator: "and", conditions: [cond(["start", "n"], ">", "10")] },
          { case_id: "pos", logical_operator: "and", conditions: [cond(["start", "n"], ">", "0")] },
        ],
      },
      ["big", "mid", "pos", "false"],
    );
    const run = async (n: number) => (await runWorkflow(wf, { inputs: { n } })).outputs;
    expect(await run(500)).toEqual({ port: "big", case: "big", result: true });
    expect(await run(50)).toEqual({ port: "mid", case: "mid", result: true });
    expect(await run(5)).toEqual({ port: "pos", case: "pos", result: true });
    expect(await run(-1)).toEqual({ port: "false", case: "false", result: false });
  });

  it("or-cases, templated expected values and boolean variables", async () => {
    const wf = branching(
      {
        cases: [
          {
            case_id: "hit",
            logical_operator: "or",
            conditions: [cond(["start", "flag"], "is", "true"), cond(["start", "n"], "≥", "{{#start.limit#}}")],
          },
        ],
      },
      ["hit", "false"],
    );
    const port = async (inputs: Record<string, unknown>) => (await runWorkflow(wf, { inputs })).outputs.port;
    expect(await port({ flag: true, n: 1, limit: 5 })).toBe("hit");
    expect(await port({ flag: false, n: 7, limit: 5 })).toBe("hit");
    expect(await port({ flag: false, n: 4, limit: 5 })).toBe("false");
  });

  it("the legacy single-case layout routes to `true`", async () => {
    const wf = branching({ logical_operator: "and", conditions: [cond(["start", "x"], "start with", "go")] }, [
      "true",
      "false",
    ]);
    expect((await runWorkflow(wf, { inputs: { x: "gopher" } })).outputs.port).toBe("true");
    expect((await runWorkflow(wf, { inputs: { x: "stop" } })).outputs.port).toBe("false");
  });

  it("a missing condition variable fails the node (Dify raises); a null one does not", async () => {
    const wf = branching(
      { cases: [{ case_id: "c", logical_operator: "and", conditions: [cond(["ghost", "out"], "empty")] }] },
      ["c", "false"],
    );
    const r = await runWorkflow(wf, { inputs: { x: "a" } });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "condition.missing_variable", nodeId: "if" });
    // start.x is declared but not given: it exists with value null, so `empty` is simply true
    const ok = branching(
      { cases: [{ case_id: "c", logical_operator: "and", conditions: [cond(["start", "x"], "empty")] }] },
      ["c", "false"],
    );
    expect((await runWorkflow(ok, { inputs: {} })).outputs.port).toBe("c");
  });

  it("`=` on a string variable fails the node with a typed error", async () => {
    const wf = branching(
      { cases: [{ case_id: "c", logical_operator: "and", conditions: [cond(["start", "x"], "=", "1")] }] },
      ["c", "false"],
    );
    const r = await runWorkflow(wf, { inputs: { x: "1" } });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "condition.bad_operand", nodeId: "if" });
  });

  describe("file-array sub-conditions", () => {
    const file = (filename: string, extension: string, type: string, size: number) => ({
      dify_model_identity: "__dify__file__",
      transfer_method: "local_file",
      filename,
      extension,
      type,
      mime_type: "application/octet-stream",
      size,
      related_id: null,
      url: null,
      remote_url: null,
    });
    const files = [file("a.pdf", ".pdf", "document", 10), file("b.png", ".png", "image", 99)];
    const wfFiles = (
      op: string,
      logical: "and" | "or",
      subs: Array<{ key: string; comparison_operator: string; value?: unknown }>,
    ) =>
      buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [{ variable: "docs", type: "file-list" }] },
          {
            id: "if",
            type: "if-else",
            cases: [
              {
                case_id: "c",
                logical_operator: "and",
                conditions: [
                  {
                    variable_selector: ["start", "docs"],
                    comparison_operator: op,
                    sub_variable_condition: { logical_operator: logical, conditions: subs },
                  },
                ],
              },
            ],
          },
          { id: "end", type: "end", outputs: [{ variable: "hit", value_selector: ["if", "result"] }] },
        ],
        edges: [
          ["start", "if"],
          ["if", "c", "end"],
          ["if", "false", "end"],
        ],
      });
    const hit = async (
      op: string,
      logical: "and" | "or",
      subs: Array<{ key: string; comparison_operator: string; value?: unknown }>,
    ) => (await runWorkflow(wfFiles(op, logical, subs), { inputs: { docs: files } })).outputs.hit;

    it("contains: any file passes each sub-condition; extensions are normalised to a leading dot", async () => {
      expect(await hit("contains", "and", [{ key: "extension", comparison_operator: "is", value: "pdf" }])).toBe(true);
      expect(await hit("contains", "and", [{ key: "extension", comparison_operator: "is", value: ".docx" }])).toBe(
        false,
      );
      expect(
        await hit("contains", "and", [
          { key: "type", comparison_operator: "in", value: ["image"] },
          { key: "size", comparison_operator: ">", value: "50" },
        ]),
      ).toBe(true);
      expect(
        await hit("contains", "and", [
          { key: "name", comparison_operator: "start with", value: "a" },
          { key: "size", comparison_operator: ">", value: "100" },
        ]),
      ).toBe(false);
      expect(
        await hit("contains", "or", [
          { key: "name", comparison_operator: "start with", value: "a" },
          { key: "size", comparison_operator: ">", value: "100" },
        ]),
      ).toBe(true);
    });

    it("a `not` sub-operator requires every file to pass (all())", async () => {
      expect(
        await hit("not contains", "and", [{ key: "extension", comparison_operator: "not in", value: [".exe"] }]),
      ).toBe(true);
      expect(await hit("not contains", "and", [{ key: "name", comparison_operator: "not contains", value: "a" }])).toBe(
        false,
      );
      expect(await hit("all of", "and", [{ key: "type", comparison_operator: "not in", value: ["video"] }])).toBe(true);
    });
  });
});
