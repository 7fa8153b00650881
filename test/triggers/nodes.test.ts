import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { exportCoze } from "../../src/dsl/coze/index.js";
import { CURRENT_DSL_VERSION, exportDify, importDify } from "../../src/dsl/dify/index.js";
import { toMermaid } from "../../src/dsl/mermaid/index.js";
import { runWorkflow } from "../../src/engine/run.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { scheduleFirePayload } from "../../src/nodes/trigger-schedule.js";
import { workflowFromEntry } from "../../src/triggers/entry.js";
import { withExportVersion } from "../support/dsl-version.js";

const FIXTURES = ["webhook-and-schedule.yml", "cron-and-plugin.yml"];
const read = (f: string) => readFileSync(new URL(`../fixtures/dify/triggers/${f}`, import.meta.url), "utf8");
const load = (f: string) => importDify(read(f), { nameHint: "t" }).workflow;
const codes = (wf: Workflow) =>
  analyse(wf, nodeCatalogue).diagnostics.map((d) => `${d.severity}:${d.code}:${d.nodeId ?? ""}`);

function withNode(wf: Workflow, f: (n: Workflow["nodes"][number]) => void, id: string): Workflow {
  const copy = structuredClone(wf);
  f(copy.nodes.find((n) => n.id === id)!);
  return copy;
}

describe("trigger nodes: Dify DSL", () => {
  it.each(FIXTURES)("%s imports and exports byte-identically (but for the DSL version, now ours), twice", (f) => {
    const text = withExportVersion(read(f), CURRENT_DSL_VERSION);
    const once = exportDify(importDify(text, { nameHint: "a" }).workflow);
    expect(once).toBe(text);
    expect(exportDify(importDify(once, { nameHint: "b" }).workflow)).toBe(text);
  });

  it("the analyser accepts several triggers, each an entry, and warns about the plugin trigger", () => {
    expect(codes(load("webhook-and-schedule.yml"))).toEqual([]);
    expect(codes(load("cron-and-plugin.yml"))).toEqual(["warning:trigger.plugin_unsupported:p"]);
  });

  it("refuses a start node beside triggers, an edge into a trigger, triggers in a chat app", () => {
    const wf = load("webhook-and-schedule.yml");
    const withStart = structuredClone(wf);
    withStart.nodes.push({ id: "st", type: "start", title: "Start", config: { variables: [] } });
    withStart.edges.push({ source: "st", sourcePort: "source", target: "1761000000003" });
    expect(codes(withStart)).toContain("error:graph.start_and_trigger:1761000000001");
    const into = structuredClone(wf);
    into.edges.push({ source: "1761000000003", sourcePort: "source", target: "1761000000002" });
    expect(codes(into)).toContain("error:edge.into_start:1761000000002");
    const chat = { ...structuredClone(wf), mode: "advanced-chat" as const };
    expect(codes(chat).some((c) => c.startsWith("error:mode.") && c.endsWith(":1761000000001"))).toBe(true);
  });

  it("checks cron, time zone, visual config and webhook fields, naming node and field", () => {
    const wf = load("cron-and-plugin.yml");
    const badCron = withNode(wf, (n) => (n.config.cron_expression = "61 8 * * *"), "s");
    const d = analyse(badCron, nodeCatalogue).diagnostics.find((x) => x.code === "trigger.schedule_cron");
    expect(d).toMatchObject({ nodeId: "s", field: "cron_expression", severity: "error" });
    const badTz = withNode(wf, (n) => (n.config.timezone = "Mars/Olympus"), "s");
    expect(codes(badTz)).toContain("error:trigger.schedule_timezone:s");
    const visual = withNode(
      wf,
      (n) =>
        Object.assign(n.config, {
          mode: "visual",
          frequency: "weekly",
          visual_config: { time: "25:00 PM", weekdays: ["funday"] },
        }),
      "s",
    );
    const fields = analyse(visual, nodeCatalogue)
      .diagnostics.filter((x) => x.code === "trigger.schedule_visual")
      .map((x) => x.field);
    expect(fields).toEqual(["visual_config.time", "visual_config.weekdays[0]"]);
    const hook = withNode(
      load("webhook-and-schedule.yml"),
      (n) => Object.assign(n.config, { method: "TRACE", status_code: 700 }),
      "1761000000001",
    );
    expect(codes(hook)).toEqual(
      expect.arrayContaining([
        "error:trigger.webhook_method:1761000000001",
        "error:trigger.webhook_status:1761000000001",
      ]),
    );
  });

  it("Mermaid draws the triggers; Coze refuses them with a typed error naming each", () => {
    const wf = load("webhook-and-schedule.yml");
    expect(toMermaid(wf)).toContain("Webhook Trigger · trigger-webhook");
    expect(() => exportCoze(wf)).toThrow(/trigger-webhook node "Webhook Trigger".*no Coze equivalent/s);
  });
});

describe("trigger nodes: running", () => {
  it("a run rooted at the webhook exposes its body and sanitised headers; the schedule branch does not run", async () => {
    const wf = workflowFromEntry(load("webhook-and-schedule.yml"), "1761000000001");
    expect(wf.nodes.map((n) => n.id)).not.toContain("1761000000002");
    const r = await runWorkflow(wf, {
      inputs: {
        webhook_data: {
          headers: { "x-request-id": "r1" },
          query_params: {},
          body: { email: "a@b.c", count: 3 },
          files: {},
        },
      },
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ text: "a@b.c x3" });
    const hook = r.trace.find((a) => a.nodeId === "1761000000001")!;
    expect(hook.outputs).toMatchObject({ X_Request_Id: "r1", email: "a@b.c", count: 3, source: null });
  });

  it("a schedule run exposes its fire time in the trigger's zone", async () => {
    const wf = workflowFromEntry(load("cron-and-plugin.yml"), "s");
    const payload = scheduleFirePayload(new Date("2026-03-02T13:00:00Z"), "America/New_York");
    expect(payload.current_time).toBe("2026-03-02T08:00:00-05:00");
    const r = await runWorkflow(wf, { inputs: payload });
    expect(r.outputs).toEqual({ fired: "2026-03-02T08:00:00-05:00" });
  });

  it("a trigger-plugin run is refused with a typed error naming the node", async () => {
    const r = await runWorkflow(workflowFromEntry(load("cron-and-plugin.yml"), "p"), {});
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "trigger.plugin_unsupported", nodeId: "p" });
    expect(r.error!.message).toMatch(/plugin daemon/);
  });
});
