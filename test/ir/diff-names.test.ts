/**
 * Issue 36 item 5: diffs name fields as people know them — list items by their own name, a selector as one
 * value — instead of `outputs[0].value_selector[0] 1005 → 1007`.
 */
import { describe, expect, it } from "vitest";
import { diffWorkflows, summarizeDiff, valueChanges } from "../../src/ir/diff.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";

const wf = (endFrom: string, classes: string[]) =>
  WorkflowSchema.parse({
    name: "t",
    mode: "workflow",
    nodes: [
      { id: "start", type: "start", title: "Start", config: { variables: [{ variable: "q", type: "paragraph" }] } },
      {
        id: "1005",
        type: "template-transform",
        title: "Translate to German",
        config: { variables: [], template: "de" },
      },
      {
        id: "1007",
        type: "template-transform",
        title: "Translate to French",
        config: { variables: [], template: "fr" },
      },
      {
        id: "cls",
        type: "question-classifier",
        title: "Classify",
        config: {
          query_variable_selector: ["start", "q"],
          classes: classes.map((name, i) => ({ id: String(i + 1), name })),
        },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "answer", value_selector: [endFrom, "output"] }] },
      },
    ],
    edges: [],
  });

describe("field names in diffs", () => {
  it("a changed selector is one change, under the output's name", () => {
    const d = diffWorkflows(wf("1005", ["a"]), wf("1007", ["a"]));
    expect(d.nodes.changed.map((c) => c.changes)).toEqual([
      [
        {
          path: ["config", "outputs", 0, "value_selector"],
          field: "outputs 'answer'.value_selector",
          kind: "changed",
          old: ["1005", "output"],
          new: ["1007", "output"],
        },
      ],
    ]);
    expect(summarizeDiff(d)).toBe("Changed “End” (outputs 'answer'.value_selector).");
  });

  it("a renamed item keeps its index; an item named by id is named by it", () => {
    const d = diffWorkflows(wf("1005", ["refund", "other"]), wf("1005", ["refunds", "other"]));
    expect(d.nodes.changed[0]!.changes.map((c) => c.field)).toEqual(["classes '1'.name"]);
    expect(valueChanges({ xs: [{ v: 1 }] }, { xs: [{ v: 2 }] }).map((c) => c.field)).toEqual(["xs[0].v"]);
  });

  it("a prompt message is named by its place and role, never by its generated id; opaque ids name nothing", () => {
    const prompt = (text: string) => ({
      prompt_template: [
        { id: "553e6337-9310-4400-8c2a-29fe6fec7c50", role: "system", text: "be brief" },
        { id: "8b1e2a10-0000-4000-8000-000000000001", role: "user", text },
      ],
    });
    expect(valueChanges(prompt("{{q}}"), prompt("{{q}} in three words")).map((c) => c.field)).toEqual([
      "prompt_template 'message 2 (user)'.text",
    ]);
    const cases = (op: string) => ({ cases: [{ case_id: "1776841190697", comparison_operator: op }] });
    expect(valueChanges(cases("is"), cases("contains")).map((c) => c.field)).toEqual(["cases[0].comparison_operator"]);
  });
});
