// The AI builder knows triggers: the node knowledge sent to the model describes trigger-schedule and
// trigger-webhook, and a (scripted) model answer that uses them becomes a workflow the analyser accepts.
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { generateWorkflow } from "../../src/authoring/generate.js";
import { hasErrors } from "../../src/ir/diagnostics.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { scheduleSpecOf } from "../../src/triggers/schedule/ticks.js";
import { replayServerPerFile } from "../support/per-file.js";
import { replayLlm } from "../support/replay-llm.js";
import { reply } from "../support/replay-server.js";

const server = replayServerPerFile();

const llm = () => replayLlm(server);
const model = { provider: "weft", name: "planner" };
const answer = (sel: string, wf: unknown) =>
  `<node_selection>${sel}</node_selection>\n<design_principle>A trigger entry, no start node.</design_principle>\n<workflow>${JSON.stringify(wf)}</workflow>`;

const http = (method: string, url: string, body?: string) => ({
  dify: {
    method,
    url,
    headers: "",
    params: "",
    body: body ? { type: "json", data: [{ type: "text", value: body }] } : { type: "none", data: [] },
    authorization: { type: "no-auth" },
    timeout: { max_connect_timeout: 10, max_read_timeout: 30, max_write_timeout: 10 },
  },
});

describe("generation with triggers (replay model)", () => {
  it("'every morning at 8 summarise … and post it to …' becomes a trigger-schedule entry the analyser accepts", async () => {
    const wf = {
      nodes_info: [
        {
          id: "1",
          type: "trigger-schedule",
          param: { mode: "visual", frequency: "daily", visual_config: { time: "8:00 AM" }, timezone: "Europe/Berlin" },
        },
        { id: "2", type: "http-request", param: http("get", "https://news.example.com/feed.xml") },
        {
          id: "3",
          type: "llm",
          param: { system: "You summarise news feeds in five bullet points.", user: "Summarise:\n{{#'2'.body#}}" },
        },
        {
          id: "4",
          type: "http-request",
          param: http("post", "https://hooks.slack.example.com/services/T0/B0/X", '{"text": "{{#3.text#}}"}'),
        },
        { id: "5", type: "end", param: { outputs: [["summary", ["text", "3"]]] } },
      ],
      edges: [
        ["1", 0, "2"],
        ["2", 0, "3"],
        ["3", 0, "4"],
        ["4", 0, "5"],
      ],
    };
    server.enqueue(reply.text(answer("Schedule Trigger, HTTP Request, LLM, HTTP Request, End", wf)));
    const r = await generateWorkflow({
      llm: llm(),
      model,
      instruction:
        "every morning at 8 summarise the news feed at https://news.example.com/feed.xml and post it to our Slack webhook",
    });
    const system = server.requests[0]!.body.messages[0].content as string;
    expect(system).toContain("### trigger-schedule");
    expect(system).toContain("### trigger-webhook");
    expect(system).toContain("Every morning at 8");
    expect(r.attempts.flatMap((a) => a.problems)).toEqual([]);
    expect(r.passed).toBe(true);
    const entry = r.workflow!.nodes.find((n) => n.type === "trigger-schedule")!;
    expect(r.workflow!.nodes.some((n) => n.type === "start")).toBe(false);
    expect(hasErrors(analyse(r.workflow!, nodeCatalogue).diagnostics)).toBe(false);
    expect(scheduleSpecOf(entry.config, entry.id)).toEqual({
      cron: "0 8 * * *",
      timezone: "Europe/Berlin",
      missedTicks: "run_once",
    });
  });

  it("'when a form is submitted …' becomes a trigger-webhook entry; a start node beside it is fed back and fixed", async () => {
    const hook = {
      id: "1",
      type: "trigger-webhook",
      param: {
        method: "POST",
        content_type: "application/json",
        body: [
          { name: "email", type: "string", required: true },
          { name: "message", type: "string", required: true },
        ],
        status_code: 200,
        response_body: "",
      },
    };
    const rest = [
      { id: "2", type: "llm", param: { system: "Write a short, friendly reply.", user: "{{#'1'.message#}}" } },
      {
        id: "3",
        type: "end",
        param: {
          outputs: [
            ["reply", ["text", "2"]],
            ["to", ["email", "1"]],
          ],
        },
      },
    ];
    const both = {
      nodes_info: [{ id: "0", type: "start", param: { variables: [] } }, hook, ...rest],
      edges: [
        ["0", 0, "2"],
        ["1", 0, "2"],
        ["2", 0, "3"],
      ],
    };
    const fixed = {
      nodes_info: [hook, ...rest],
      edges: [
        ["1", 0, "2"],
        ["2", 0, "3"],
      ],
    };
    server.enqueue(
      reply.text(answer("Start, Webhook Trigger, LLM, End", both)),
      reply.text(answer("Webhook Trigger, LLM, End", fixed)),
    );
    const r = await generateWorkflow({
      llm: llm(),
      model,
      instruction: "when a form is submitted on our site, draft a reply to the message",
    });
    expect(r.attempts[0]!.problems.map((p) => p.code)).toContain("graph.start_and_trigger");
    expect(r.passed).toBe(true);
    expect(r.workflow!.nodes.map((n) => n.type)).toEqual(["trigger-webhook", "llm", "end"]);
    expect(hasErrors(analyse(r.workflow!, nodeCatalogue).diagnostics)).toBe(false);
  });
});
