import { describe, expect, it } from "vitest";
import { availableAt } from "../../src/analysis/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { e, end, errors, ifElse, n, run, show, start, tt, wf } from "./helpers.js";

describe("availableAt", () => {
  const w = wf(
    "workflow",
    [
      start([
        ["query", "paragraph"],
        ["items", "array[string]"],
      ]),
      ifElse("if", ["true"]),
      tt("yes", [["q", ["start", "query"]]]),
      tt("no", [["q", ["start", "query"]]]),
      n("it", "iteration", { iterator_selector: ["start", "items"], output_selector: ["body", "output"] }),
      n("itstart", "iteration-start", {}, { parentId: "it" }),
      n("body", "template-transform", { template: "x" }, { parentId: "it" }),
      end("end", []),
    ],
    [
      e("start", "if"),
      e("if", "yes", "true"),
      e("if", "no", "false"),
      e("yes", "it"),
      e("no", "it"),
      e("it", "end"),
      e("itstart", "body"),
    ],
    { environment_variables: [{ name: "KEY", value_type: "secret" }] },
  );
  const sels = (id: string) => availableAt(w, nodeCatalogue, id)!.map((v) => v.selector.join("."));

  it("lists what is certain at a join, not the branch outputs", () => {
    const at = sels("it");
    expect(at).toEqual(expect.arrayContaining(["start.query", "start.items", "if.result", "sys.files", "env.KEY"]));
    expect(at).not.toContain("yes.output");
    expect(at).not.toContain("sys.query");
  });

  it("inside a body: the container's scope values plus what precedes the container", () => {
    const at = sels("body");
    expect(at).toEqual(expect.arrayContaining(["it.item", "it.index", "start.query"]));
    expect(at).not.toContain("it.output");
    expect(sels("end")).toContain("it.output");
  });

  it("undefined for an unknown node", () => {
    expect(availableAt(w, nodeCatalogue, "nope")).toBeUndefined();
  });
});

describe("legacy container layout flagged with isIterationStart", () => {
  it("finds the body entry without start_node_id", () => {
    const w = wf(
      "workflow",
      [
        start([["items", "array[string]"]]),
        n("it", "iteration", { iterator_selector: ["start", "items"], output_selector: ["b1", "output"] }),
        n("b1", "template-transform", { template: "x", isIterationStart: true }, { parentId: "it" }),
        end("end", [["out", ["it", "output"]]]),
      ],
      [e("start", "it"), e("it", "end")],
    );
    const r = run(w);
    expect(errors(r), show(r)).toEqual([]);
  });
});
