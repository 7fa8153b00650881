/**
 * The compile pipeline with a scripted model behind the real LLM client (replay server on 127.0.0.1):
 * burden-driven splitting, dry runs catching an OR compiled as AND, and the static join check.
 */
import { describe, expect, it } from "vitest";
import { compileSop } from "../../src/compile/compile.js";
import { lowerModel } from "../../src/compile/lower.js";
import { parseModel, type SopModelInput } from "../../src/compile/model.js";
import { measureBurden } from "../../src/compile/optimise.js";
import { dryRun } from "../../src/compile/validate/dryrun.js";
import type { SourceLogic } from "../../src/compile/validate/source.js";
import { staticCheck } from "../../src/compile/validate/static.js";
import { runWorkflow } from "../../src/engine/run.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { replayServerPerFile } from "../support/per-file.js";
import { reply } from "../support/replay-server.js";
import { lastUser, MODEL, ScriptedModel } from "./scripted.js";

const server = replayServerPerFile();

const NO_TOOLS = { providerId: "tools", specs: [] };
const NO_DECISIONS: SourceLogic = { artifacts: [], decisions: [] };

// ---------------------------------------------------------------------------------------------
// Burden: one step that does everything, split on the optimiser's feedback.

const REFUND_SOP = `Refund procedure. Read the customer's message. If the item arrived damaged, offer a replacement;
when the customer refuses the replacement, refund in full. If the order is older than 30 days, refuse unless the
customer is a gold member. When the payment was by card, refund to the card; otherwise issue store credit. If the
amount is over 200, ask a supervisor; in case the supervisor is absent, wait. Depending on the country, add tax.
Write the reply to the customer.`;

function monolith(): SopModelInput {
  return {
    name: "refunds",
    inputs: [{ name: "message", type: "string" }],
    steps: [
      {
        id: "process",
        kind: "agent",
        instruction:
          "Handle the whole refund. If the item arrived damaged, offer a replacement; when the customer refuses, refund in full. If the order is older than 30 days, refuse unless the customer is gold. When the payment was by card, refund to the card, otherwise store credit. If the amount is over 200 ask a supervisor; in case the supervisor is absent, wait. Depending on the country add tax, and if tax applies, whether it is included. Then write the reply.",
        reads: ["message"],
        writes: [{ name: "reply_text", type: "string" }],
      },
    ],
    flow: ["process"],
    outputs: [{ name: "reply", artifact: "reply_text" }],
  };
}

function split(): SopModelInput {
  return {
    name: "refunds",
    inputs: [{ name: "message", type: "string" }],
    steps: [
      {
        id: "extract",
        kind: "agent",
        instruction:
          "Extract the facts of the request: damaged item, order age in days, membership tier, payment method, amount, country.",
        reads: ["message"],
        writes: [
          { name: "damaged", type: "boolean" },
          { name: "age_days", type: "number" },
          { name: "amount", type: "number" },
        ],
      },
      {
        id: "decide",
        kind: "code",
        instruction: "Apply the refund rules to the extracted facts.",
        reads: ["damaged", "age_days", "amount"],
        writes: [{ name: "outcome", type: "string" }],
        code: 'function main({ damaged, age_days, amount }) {\n  return { outcome: damaged ? "replacement" : age_days > 30 ? "refused" : amount > 200 ? "supervisor" : "refund" };\n}',
      },
      {
        id: "write_reply",
        kind: "agent",
        instruction: "Write a short, polite reply to the customer that states the outcome.",
        reads: ["outcome"],
        writes: [{ name: "reply_text", type: "string" }],
      },
    ],
    flow: ["extract", "decide", "write_reply"],
    outputs: [{ name: "reply", artifact: "reply_text" }],
  };
}

describe("burden optimisation", () => {
  it("a step over the cyclomatic threshold is reported, split on revision, and the split is kept", async () => {
    const m = new ScriptedModel(server);
    m.push("source", reply.json(NO_DECISIONS))
      .push("draft", reply.json(monolith()))
      .push("revise", reply.json(split()));
    const r = await compileSop({ sop: REFUND_SOP, tools: NO_TOOLS, llm: m.llm(), model: MODEL });

    const { before, after, rounds } = r.report.burden;
    expect(before.overThreshold).toEqual(["process"]);
    expect(before.maxCyclomatic).toBeGreaterThan(10);
    expect(before.maxScore).toBeGreaterThan(1);
    // The feedback named the step and the metric.
    const revision = lastUser(m.of("revise")[0]!);
    expect(revision).toContain("# Revision request: burden");
    expect(revision).toContain('"process"');
    expect(revision).toMatch(/cyclomatic \d+ \(threshold 10\)/);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]!.accepted).toBe(true);
    // More, smaller steps, and a lower maximum burden, all under threshold.
    expect(after.steps).toBeGreaterThan(before.steps);
    expect(Math.max(...r.model.steps.map((s) => s.instruction.length))).toBeLessThan(
      monolith().steps[0]!.instruction.length,
    );
    expect(after.maxScore).toBeLessThan(before.maxScore);
    expect(after.overThreshold).toEqual([]);
    expect(r.model.steps.map((s) => s.id)).toEqual(["extract", "decide", "write_reply"]);
    // Sequence obligations were judged at both boundaries of the final model.
    expect(r.report.faithfulness.at(-1)!.obligations.map((o) => `${o.kind}:${o.construct}`)).toEqual([
      "sequence:extract|decide",
      "sequence:decide|write_reply",
    ]);
    expect(r.report.passed).toBe(true);
  });

  it("a revision that does not lower the burden is not taken", async () => {
    const m = new ScriptedModel(server);
    m.push("source", reply.json(NO_DECISIONS))
      .push("draft", reply.json(monolith()))
      .push("revise", reply.json(monolith()), reply.json(monolith()), reply.json(monolith()));
    const r = await compileSop({
      sop: REFUND_SOP,
      tools: NO_TOOLS,
      llm: m.llm(),
      model: MODEL,
      rounds: 2,
      skipObligations: true,
    });
    expect(r.report.burden.rounds.map((x) => x.accepted)).toEqual([false, false]);
    expect(r.report.burden.rounds[0]!.rejectedBecause).toMatch(/did not fall/);
    expect(r.report.burden.after.maxScore).toBe(r.report.burden.before.maxScore);
  });
});

// ---------------------------------------------------------------------------------------------
// Dry runs: an OR compiled as AND.

const ROUTING_SOP = `Priority routing. If the customer is a gold member or the order total is over 500 dollars, route the
order to priority handling. Otherwise route it to standard handling.`;

const ROUTING_LOGIC: SourceLogic = {
  artifacts: [
    { name: "tier", type: "string" },
    { name: "total", type: "number" },
  ],
  decisions: [
    {
      id: "priority",
      description: "gold member or order total over 500 → priority handling",
      kind: "branch",
      atoms: [
        { id: "gold", artifact: "tier", comparison_operator: "is", value: "gold" },
        { id: "big", artifact: "total", comparison_operator: ">", value: 500 },
      ],
      formula: { or: [{ atom: "gold" }, { atom: "big" }] },
    },
  ],
};

function routing(op: "and" | "or"): SopModelInput {
  return {
    name: "routing",
    inputs: [
      { name: "tier", type: "string" },
      { name: "total", type: "number" },
    ],
    steps: [
      {
        id: "priority",
        kind: "code",
        instruction: "Route to priority handling.",
        writes: [{ name: "route", type: "string" }],
        code: 'function main() {\n  return { route: "priority" };\n}',
      },
      {
        id: "standard",
        kind: "code",
        instruction: "Route to standard handling.",
        writes: [{ name: "route", type: "string" }],
        code: 'function main() {\n  return { route: "standard" };\n}',
      },
    ],
    branches: [
      {
        id: "is_priority",
        decision: "priority",
        condition: {
          logical_operator: op,
          conditions: [
            { artifact: "tier", comparison_operator: "is", value: "gold" },
            { artifact: "total", comparison_operator: ">", value: "500" },
          ],
        },
        // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
        then: ["priority"],
        else: ["standard"],
      },
    ],
    flow: ["is_priority"],
    outputs: [{ name: "route", artifact: "route" }],
  };
}

describe("dry runs by predicate coverage", () => {
  it("the SOP's or gives the distinguishing scenarios an and gets wrong", () => {
    const r = dryRun(parseModel(routing("and")), ROUTING_LOGIC);
    expect(r.unimplemented).toEqual([]);
    const d = r.decisions[0]!;
    expect(d.construct).toBe("is_priority");
    expect(d.maskedSource).toEqual([]);
    const scen = r.disagreements.map((x) => x.scenario);
    // gold with a small order, and a big order without gold: the SOP says priority, the and says no.
    expect(scen).toContainEqual({ tier: "gold", total: 500 });
    expect(scen.some((s) => s.tier !== "gold" && Number(s.total) > 500)).toBe(true);
    for (const x of r.disagreements) expect([x.source, x.compiled]).toEqual([true, false]);
    expect(dryRun(parseModel(routing("or")), ROUTING_LOGIC).disagreements).toEqual([]);
  });

  it("an off-by-one operator is caught by the boundary witness", () => {
    const m = routing("or");
    m.branches![0]!.condition.conditions[1]!.comparison_operator = "≥";
    const r = dryRun(parseModel(m), ROUTING_LOGIC);
    expect(r.disagreements.map((x) => x.scenario)).toContainEqual({ tier: "gold_other", total: 500 });
  });

  it("the pipeline reports the disagreement, re-drafts with it, and the fix runs correctly on the engine", async () => {
    const m = new ScriptedModel(server);
    m.push("source", reply.json(ROUTING_LOGIC))
      .push("draft", reply.json(routing("and")))
      .push("revise", reply.json(routing("or")));
    const r = await compileSop({ sop: ROUTING_SOP, tools: NO_TOOLS, llm: m.llm(), model: MODEL });

    const first = r.report.faithfulness[0]!;
    expect(first.dryRun.disagreements.length).toBeGreaterThan(0);
    expect(first.feedback.join("\n")).toMatch(/Decision "priority" is implemented by "is_priority", but they disagree/);
    const revision = lastUser(m.of("revise")[0]!);
    expect(revision).toContain("# Revision request: faithfulness");
    expect(revision).toContain("is TRUE while the compiled condition");
    // The draft never saw the SOP formulas, only decision ids and descriptions.
    const draftReq = JSON.stringify(m.of("draft")[0]!.body.messages);
    expect(draftReq).toContain("priority (branch): gold member or order total over 500");
    expect(draftReq).not.toContain('"or":[');

    expect(r.report.disagreementsFound).toBe(first.dryRun.disagreements.length);
    expect(r.report.disagreementsFixed).toBe(r.report.disagreementsFound);
    expect(r.report.disagreementsRemaining).toEqual([]);
    expect(r.report.redrafts).toBe(1);
    expect(r.report.passed).toBe(true);
    expect(r.model.branches[0]!.condition.logical_operator).toBe("or");
    // One branch obligation per round, judged by the model.
    expect(r.report.faithfulness.map((f) => f.obligations.map((o) => o.kind))).toEqual([["branch"], ["branch"]]);

    const sandbox = createSandbox();
    for (const [inputs, route] of [
      [{ tier: "gold", total: 10 }, "priority"],
      [{ tier: "silver", total: 900 }, "priority"],
      [{ tier: "silver", total: 10 }, "standard"],
    ] as const) {
      const run = await runWorkflow(r.workflow, { inputs, services: { sandbox } });
      expect(run.status).toBe("succeeded");
      expect(run.outputs.route).toBe(route);
    }
  });

  it("a decision no branch implements is reported", () => {
    const m = routing("or");
    m.branches![0]!.decision = "something_else";
    m.branches![0]!.condition.conditions = [{ artifact: "total", comparison_operator: "<", value: 0 }];
    const logic: SourceLogic = {
      ...ROUTING_LOGIC,
      decisions: [
        {
          ...ROUTING_LOGIC.decisions[0]!,
          atoms: [{ id: "gold", artifact: "tier", comparison_operator: "is", value: "gold" }],
          formula: { atom: "gold" },
        },
      ],
    };
    const r = dryRun(parseModel(m), logic);
    expect(r.unimplemented).toEqual(["priority"]);
    expect(r.unmatched).toEqual(["is_priority"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Static: an artifact missing on one path of a join.

function joinModel(elseWritesNote: boolean | "number"): SopModelInput {
  return {
    name: "join",
    inputs: [{ name: "amount", type: "number" }],
    steps: [
      {
        id: "big",
        kind: "code",
        instruction: "Note a large amount.",
        writes: [{ name: "note", type: "string" }],
        code: 'function main() {\n  return { note: "large" };\n}',
      },
      elseWritesNote === false
        ? {
            id: "small",
            kind: "code",
            instruction: "Nothing to note.",
            writes: [{ name: "flag", type: "boolean" }],
            code: "function main() {\n  return { flag: true };\n}",
          }
        : {
            id: "small",
            kind: "code",
            instruction: "Note a small amount.",
            writes: [{ name: "note", type: elseWritesNote === "number" ? "number" : "string" }],
            code:
              elseWritesNote === "number"
                ? "function main() {\n  return { note: 1 };\n}"
                : 'function main() {\n  return { note: "small" };\n}',
          },
      {
        id: "report",
        kind: "code",
        instruction: "Report the note.",
        reads: ["note"],
        writes: [{ name: "summary", type: "string" }],
        code: 'function main({ note }) {\n  return { summary: "note: " + note };\n}',
      },
    ],
    branches: [
      {
        id: "size",
        condition: {
          logical_operator: "and",
          conditions: [{ artifact: "amount", comparison_operator: ">", value: "100" }],
        },
        // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
        then: ["big"],
        else: ["small"],
      },
    ],
    flow: ["size", "report"],
    outputs: [{ name: "summary", artifact: "summary" }],
  };
}

describe("static check at joins", () => {
  it("rejects a read of an artifact written on one path only (ref.not_available on the reader)", () => {
    const st = staticCheck(lowerModel(parseModel(joinModel(false))));
    expect(st.ok).toBe(false);
    const e = st.errors.find((d) => d.code === "ref.not_available");
    expect(e).toBeDefined();
    expect(e!.construct).toBe("report");
    expect(e!.message).toContain("big");
  });

  it("accepts the join when both paths write it (merged by a variable-aggregator) and runs both paths", async () => {
    const lowered = lowerModel(parseModel(joinModel(true)));
    expect(staticCheck(lowered).errors).toEqual([]);
    const agg = lowered.workflow.nodes.find((n) => n.type === "variable-aggregator")!;
    expect(agg.config.variables).toEqual([
      ["big", "note"],
      ["small", "note"],
    ]);
    const sandbox = createSandbox();
    expect(
      (await runWorkflow(lowered.workflow, { inputs: { amount: 500 }, services: { sandbox } })).outputs.summary,
    ).toBe("note: large");
    expect(
      (await runWorkflow(lowered.workflow, { inputs: { amount: 5 }, services: { sandbox } })).outputs.summary,
    ).toBe("note: small");
  });

  it("rejects a join whose paths disagree on the artifact's type", () => {
    const st = staticCheck(lowerModel(parseModel(joinModel("number"))));
    expect(st.errors.map((d) => d.code)).toContain("compile.join_type_mismatch");
  });

  it("the pipeline sends the static errors back and takes the fixed draft", async () => {
    const m = new ScriptedModel(server);
    m.push("source", reply.json(NO_DECISIONS))
      .push("draft", reply.json(joinModel(false)))
      .push("revise", reply.json(joinModel(true)));
    const r = await compileSop({
      sop: "If the amount is over 100 note it as large, otherwise as small. Report the note.",
      tools: NO_TOOLS,
      llm: m.llm(),
      model: MODEL,
      skipObligations: true,
    });
    const revision = lastUser(m.of("revise")[0]!);
    expect(revision).toContain("# Revision request: static errors");
    expect(revision).toContain("ref.not_available");
    expect(r.report.static.ok).toBe(true);
    expect(r.report.passed).toBe(true);
  });

  it("burden is measured per construct", () => {
    const model = parseModel(joinModel(true));
    const { summary } = measureBurden(model, lowerModel(model));
    expect(summary.perConstruct.map((p) => p.construct).sort()).toEqual(["big", "report", "size", "small"]);
  });
});

describe("draft repair and loops", () => {
  it("a malformed draft gets its issues back and the corrected answer is used", async () => {
    const m = new ScriptedModel(server);
    const broken = { ...routing("or"), flow: ["is_priority", "ghost"] };
    m.push("source", reply.json(ROUTING_LOGIC))
      .push("draft", reply.json(broken))
      .push("repair", reply.json(routing("or")));
    const r = await compileSop({
      sop: ROUTING_SOP,
      tools: NO_TOOLS,
      llm: m.llm(),
      model: MODEL,
      skipObligations: true,
    });
    expect(lastUser(m.of("repair")[0]!)).toContain('flow.1: "ghost" is not a step, branch or loop id');
    expect(r.report.passed).toBe(true);
    expect(r.report.redrafts).toBe(0);
  });

  it("a loop's break condition is dry-run against the SOP's stopping rule", () => {
    const model = parseModel({
      inputs: [{ name: "limit", type: "number" }],
      steps: [
        {
          id: "attempt",
          kind: "code",
          instruction: "Try once more.",
          reads: ["tries"],
          writes: [
            { name: "tries", type: "number" },
            { name: "ok", type: "boolean" },
          ],
          code: "function main({ tries }) {\n  return { tries: (tries || 0) + 1, ok: false };\n}",
        },
      ],
      loops: [
        {
          id: "retry",
          decision: "stop_retrying",
          body: ["attempt"],
          // The SOP says: stop once it succeeded or after 3 tries; compiled as "and".
          break_condition: {
            logical_operator: "and",
            conditions: [
              { artifact: "ok", comparison_operator: "is", value: "true" },
              { artifact: "tries", comparison_operator: "≥", value: 3 },
            ],
          },
        },
      ],
      flow: ["retry"],
      outputs: [{ name: "tries", artifact: "tries" }],
    });
    const logic: SourceLogic = {
      artifacts: [],
      decisions: [
        {
          id: "stop_retrying",
          description: "stop once it succeeded or after three tries",
          kind: "loop",
          atoms: [
            { id: "ok", artifact: "ok", comparison_operator: "is", value: "true" },
            { id: "three", artifact: "tries", comparison_operator: "≥", value: 3 },
          ],
          formula: { or: [{ atom: "ok" }, { atom: "three" }] },
        },
      ],
    };
    const r = dryRun(model, logic);
    expect(r.decisions[0]!.construct).toBe("retry");
    expect(r.disagreements.length).toBeGreaterThan(0);
    expect(r.disagreements.every((d) => d.source && !d.compiled)).toBe(true);
  });
});

describe("faithfulness findings", () => {
  it("a masked atom in the SOP reading is reported, and the dry run still shows where the compiled or differs", async () => {
    const { dryRunFeedback } = await import("../../src/compile/validate/dryrun.js");
    const m = routing("or");
    m.branches![0]!.condition = {
      logical_operator: "or",
      conditions: [
        { artifact: "tier", comparison_operator: "is", value: "gold" },
        { artifact: "total", comparison_operator: ">", value: "500" },
      ],
    };
    const logic: SourceLogic = {
      ...ROUTING_LOGIC,
      decisions: [
        {
          ...ROUTING_LOGIC.decisions[0]!,
          // The SOP reading itself: gold or (gold and big) — big can never matter.
          formula: { or: [{ atom: "gold" }, { and: [{ atom: "gold" }, { atom: "big" }] }] },
        },
      ],
    };
    const r = dryRun(parseModel(m), logic);
    expect(r.decisions[0]!.maskedSource).toEqual(["total > 500"]);
    // The compiled or lets a big order through where the SOP reading does not.
    expect(r.disagreements.some((d) => !d.source && d.compiled)).toBe(true);
    expect(dryRunFeedback(r, logic).join("\n")).toContain("disagree");
  });

  it("a construct that tests other values than its decision is told to use the SOP's names", async () => {
    const { dryRunFeedback } = await import("../../src/compile/validate/dryrun.js");
    const m = routing("or");
    m.inputs = [
      { name: "member_level", type: "string" },
      { name: "order_value", type: "number" },
    ];
    m.branches![0]!.condition.conditions = [
      { artifact: "member_level", comparison_operator: "is", value: "gold" },
      { artifact: "order_value", comparison_operator: ">", value: "500" },
    ];
    const r = dryRun(parseModel(m), ROUTING_LOGIC);
    expect(r.decisions[0]!.sharedArtifacts).toEqual([]);
    expect(dryRunFeedback(r, ROUTING_LOGIC)[0]).toContain("tests none of the values it depends on (tier, total)");
  });

  it("a loop whose body never changes what its break condition tests fails its obligation without a judge call", async () => {
    const { checkObligations } = await import("../../src/compile/validate/obligations.js");
    const m = new ScriptedModel(server);
    const model = parseModel({
      inputs: [{ name: "n", type: "number" }],
      steps: [
        {
          id: "work",
          kind: "code",
          instruction: "Work.",
          writes: [{ name: "x", type: "number" }],
          code: "function main() {\n  return { x: 1 };\n}",
        },
      ],
      loops: [
        {
          id: "spin",
          body: ["work"],
          break_condition: {
            logical_operator: "and",
            conditions: [{ artifact: "n", comparison_operator: ">", value: 3 }],
          },
        },
      ],
      flow: ["spin"],
      outputs: [{ name: "x", artifact: "x" }],
    });
    const res = await checkObligations({
      llm: m.llm(),
      model: MODEL,
      sop: "Repeat the work until n exceeds 3.",
      sopModel: model,
    });
    expect(res).toEqual([
      expect.objectContaining({
        kind: "loop",
        construct: "spin",
        holds: false,
        reason: expect.stringContaining("never writes n"),
      }),
    ]);
    expect(m.of("judge")).toHaveLength(0);
  });

  it("a failing judge verdict becomes re-draft feedback", async () => {
    const m = new ScriptedModel(server);
    m.push("source", reply.json(ROUTING_LOGIC))
      .push("draft", reply.json(routing("or")))
      .push("revise", reply.json(routing("or")));
    m.push("judge", reply.json({ holds: false, reason: "the else path should also notify the customer" }));
    const r = await compileSop({ sop: ROUTING_SOP, tools: NO_TOOLS, llm: m.llm(), model: MODEL });
    expect(lastUser(m.of("revise")[0]!)).toContain(
      'The branch obligation for "is_priority" fails: the else path should also notify the customer',
    );
    expect(r.report.obligationsFailed).toBe(1);
    expect(r.report.obligationsChecked).toBe(2);
    expect(r.report.passed).toBe(true);
  });

  it("a faithfulness fix that breaks the static check is not taken, and the next request says why", async () => {
    const m = new ScriptedModel(server);
    const broken = routing("or");
    broken.outputs = [{ name: "route", artifact: "nowhere" }];
    m.push("source", reply.json(ROUTING_LOGIC))
      .push("draft", reply.json(routing("and")))
      .push("revise", reply.json(broken), reply.json(routing("or")));
    const r = await compileSop({
      sop: ROUTING_SOP,
      tools: NO_TOOLS,
      llm: m.llm(),
      model: MODEL,
      skipObligations: true,
    });
    const second = lastUser(m.of("revise")[1]!);
    expect(second).toContain("Your previous revision was not used because it fails the static check");
    expect(second).toContain("compile.unknown_artifact");
    expect(r.report.passed).toBe(true);
    expect(r.report.redrafts).toBe(2);
    expect(r.model.branches[0]!.condition.logical_operator).toBe("or");
  });

  it("the draft prompt names the values the decisions test, but not the formulas", async () => {
    const m = new ScriptedModel(server);
    m.push("source", reply.json(ROUTING_LOGIC)).push("draft", reply.json(routing("or")));
    await compileSop({ sop: ROUTING_SOP, tools: NO_TOOLS, llm: m.llm(), model: MODEL, skipObligations: true });
    const user = lastUser(m.of("draft")[0]!);
    expect(user).toContain("use these artifact names): tier (string), total (number)");
    expect(user).not.toContain('"atom"');
  });
});

describe("source logic extraction", () => {
  it("a formula naming an undeclared atom is sent back once, then the corrected reading is used", async () => {
    const { extractSourceLogic } = await import("../../src/compile/validate/source.js");
    const m = new ScriptedModel(server);
    const bad = {
      ...ROUTING_LOGIC,
      decisions: [{ ...ROUTING_LOGIC.decisions[0]!, formula: { or: [{ atom: "gold" }, { atom: "huge" }] } }],
    };
    m.push("source", reply.json(bad), reply.json(ROUTING_LOGIC));
    const logic = await extractSourceLogic({ llm: m.llm(), model: MODEL, sop: ROUTING_SOP, tools: [] });
    expect(logic.decisions[0]!.formula).toEqual({ or: [{ atom: "gold" }, { atom: "big" }] });
    expect(lastUser(m.of("source")[1]!)).toContain("the formula uses undeclared atoms huge");
  });
});

describe("semantic masking", () => {
  it("a comparison implied by another on the same value cannot be shown independent, and is reported", async () => {
    const { dryRunFeedback } = await import("../../src/compile/validate/dryrun.js");
    const m = routing("or");
    m.branches![0]!.condition.conditions = [
      { artifact: "total", comparison_operator: ">", value: "500" },
      { artifact: "total", comparison_operator: ">", value: "100" },
    ];
    const logic: SourceLogic = {
      ...ROUTING_LOGIC,
      decisions: [
        { ...ROUTING_LOGIC.decisions[0]!, atoms: [ROUTING_LOGIC.decisions[0]!.atoms[1]!], formula: { atom: "big" } },
      ],
    };
    const r = dryRun(parseModel(m), logic);
    const d = r.decisions[0]!;
    // Truth-table coverage finds a pair for "total > 500" (true, with "> 100" false), but no number is both.
    expect(d.maskedCompiled).toEqual([]);
    expect(d.unrealisable).toEqual(["compiled: total > 500"]);
    expect(d.infeasible).toBeGreaterThan(0);
    // The realisable pair of "> 100" still exposes the wrong threshold.
    expect(r.disagreements.length).toBeGreaterThan(0);
    for (const x of r.disagreements) {
      expect(Number(x.scenario.total)).toBeGreaterThan(100);
      expect(Number(x.scenario.total)).toBeLessThanOrEqual(500);
      expect([x.source, x.compiled]).toEqual([false, true]);
    }
    expect(dryRunFeedback(r, logic).join("\n")).toContain("total > 500 are implied by others on the same value");
  });
});
