import { describe, expect, it } from "vitest";
import { applied, diamond, failure, nodeIn, WORKFLOW_ENV } from "./graphs.js";

const llm = () => {
  const g = diamond();
  g.nodes.push({
    id: "l",
    type: "llm",
    config: { prompt_template: [{ role: "system", text: "Old.\n\nTools:\n- t" }] },
  });
  return g;
};
const templates = (ref: string) => (ref === "planning/short" ? { system: "Plan briefly." } : undefined);

describe("refine_prompt", () => {
  it("a system text keeps the appended tool list; a template comes from the caller's library", () => {
    const g = applied(llm(), { kind: "refine_prompt", id: "l", system: "New." });
    expect((nodeIn(g, "l").config as any).prompt_template[0].text).toBe("New.\n\nTools:\n- t");
    const t = applied(
      llm(),
      { kind: "refine_prompt", id: "l", template: "planning/short", user: "Go" },
      { ...WORKFLOW_ENV, templates },
    );
    expect((nodeIn(t, "l").config as any).prompt_template).toEqual([
      { role: "system", text: "Plan briefly.\n\nTools:\n- t" },
      { role: "user", text: "Go" },
    ]);
  });

  it("a tool-call node's prompt is its instruction", () => {
    const g = diamond();
    g.nodes.push({ id: "tc", type: "tool-call", config: {} });
    expect(nodeIn(applied(g, { kind: "refine_prompt", id: "tc", instruction: "Do." }), "tc").config.instruction).toBe(
      "Do.",
    );
  });

  it("names an unknown template and a node that has no prompt", () => {
    expect(failure(llm(), { kind: "refine_prompt", id: "l", template: "poetry/haiku" })).toMatchObject({
      code: "edit.unknown_template",
      nodeId: "l",
      field: "template",
    });
    expect(failure(diamond(), { kind: "refine_prompt", id: "a", system: "x" })).toMatchObject({
      code: "edit.wrong_type",
      nodeId: "a",
    });
  });
});
