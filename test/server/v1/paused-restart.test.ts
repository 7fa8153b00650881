/**
 * A paused human-input run is durable: `weft serve` (a real subprocess) is killed with SIGKILL while the run
 * waits, started again on the same database, and the answer sent through the service API completes the run;
 * the HTTP call before the pause (counted by a loopback server) and every node before it ran once. The app
 * and its key come from the CLI a user would run: `weft apps import FILE.yml`, `weft keys create --app`.
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDify } from "../../../src/dsl/dify/index.js";
import { openStores } from "../../../src/store/open.js";
import { buildWorkflow, tpl } from "../../support/build.js";
import { tempDir } from "../../support/per-file.js";
import { difyEvents } from "../../support/v1-apps.js";
import { cleanEnv, spawnWeftServe, weftOut } from "../../support/weft-bin.js";

const env = cleanEnv();
const dir = tempDir("paused");
let counter: Server;
let counterUrl: string;
const hits: string[] = [];

beforeAll(async () => {
  counter = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.setHeader("content-type", "text/plain");
    res.end("ticket-42");
  });
  await new Promise<void>((r) => counter.listen(0, "127.0.0.1", r));
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
  writeFileSync(
    join(dir, "weft.config.json"),
    JSON.stringify({ http: { allowPrivate: true }, files: { dir: join(dir, "files") }, db: join(dir, "weft.db") }),
  );
});
afterAll(async () => {
  await new Promise((r) => counter.close(r));
});

const weft = (args: string[]) =>
  weftOut(args, { cwd: dir, env, timeout: 120_000, tail: ["--config", join(dir, "weft.config.json")] });

/** `weft serve` in its own process, on this test's config. */
const serve = () =>
  spawnWeftServe(["serve", "--port", "0", "--config", join(dir, "weft.config.json")], { cwd: dir, env });

async function sse(res: Response): Promise<Array<Record<string, any>>> {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return difyEvents(res.body as unknown as AsyncIterable<Uint8Array>);
}

function reviewFlow() {
  return buildWorkflow({
    nodes: [
      {
        id: "start",
        type: "start",
        title: "Start",
        variables: [{ variable: "topic", label: "Topic", type: "text-input", required: true }],
      },
      {
        id: "fetch",
        type: "http-request",
        title: "Open a ticket",
        method: "get",
        url: `${counterUrl}/hit?topic={{#start.topic#}}`,
        headers: "",
        params: "",
        body: { type: "none", data: [] },
        authorization: { type: "no-auth" },
        timeout: { max_connect_timeout: 10, max_read_timeout: 10, max_write_timeout: 10 },
      },
      tpl("draft", "{{ t }} on {{ topic }}", { t: ["fetch", "body"], topic: ["start", "topic"] }, { title: "Draft" }),
      {
        id: "review",
        type: "human-input",
        title: "Review",
        form_content: "Please review: {{#draft.output#}}\n\nNote: {{#$output.note#}}",
        inputs: [
          { type: "paragraph", output_variable_name: "note", default: { type: "constant", selector: [], value: "" } },
        ],
        user_actions: [
          { id: "approve", title: "Approve", button_style: "primary" },
          { id: "reject", title: "Reject", button_style: "default" },
        ],
        timeout: 1,
        timeout_unit: "day",
      },
      tpl(
        "yes",
        "approved: {{ n }} / {{ d }}",
        { n: ["review", "note"], d: ["draft", "output"] },
        { title: "Approved" },
      ),
      tpl("no", "rejected: {{ n }}", { n: ["review", "note"] }, { title: "Rejected" }),
      tpl("late", "nobody answered", {}, { title: "Timed out" }),
      {
        id: "agg",
        type: "variable-aggregator",
        title: "Outcome",
        output_type: "string",
        variables: [
          ["yes", "output"],
          ["no", "output"],
          ["late", "output"],
        ],
      },
      { id: "end", type: "end", title: "End", outputs: [{ variable: "out", value_selector: ["agg", "output"] }] },
    ],
    edges: [
      ["start", "fetch"],
      ["fetch", "draft"],
      ["draft", "review"],
      ["review", "approve", "yes"],
      ["review", "reject", "no"],
      ["review", "__timeout", "late"],
      ["yes", "agg"],
      ["no", "agg"],
      ["late", "agg"],
      ["agg", "end"],
    ],
  });
}

describe("a paused human-input run across kill -9 of the server", () => {
  it("completes after a restart with the given answer; nothing before the pause runs twice", async () => {
    const yml = join(dir, "review.yml");
    writeFileSync(yml, exportDify(reviewFlow()));
    const appId = weft(["apps", "import", yml]).trim().split("\n").at(-1)!;
    expect(weft(["apps", "list"])).toContain(appId);
    const key = /app-\S+/.exec(weft(["keys", "create", "--app", appId]))![0];
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    let server = await serve();
    try {
      const first = await sse(
        await fetch(`${server.url}/v1/workflows/run`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ inputs: { topic: "cats" }, response_mode: "streaming", user: "u1" }),
        }),
      );
      expect(first.map((e) => e.event).slice(-2)).toEqual(["human_input_required", "workflow_paused"]);
      const asked = first.find((e) => e.event === "human_input_required")!.data;
      expect(asked.form_content).toContain("Please review: ticket-42 on cats");
      expect(asked.actions.map((a: { id: string }) => a.id)).toEqual(["approve", "reject"]);
      const runId = first[0]!.workflow_run_id;
      expect(hits).toEqual(["/hit?topic=cats"]);
      // Paused, as every interface shows it.
      expect(weft(["runs"])).toMatch(new RegExp(`${runId}.*paused`));
      const pausedRun = await (await fetch(`${server.url}/v1/workflows/run/${runId}`, { headers: auth })).json();
      expect(pausedRun.status).toBe("paused");

      await server.stop("SIGKILL");
      expect(server.proc.signalCode).toBe("SIGKILL");
      server = await serve();

      const again = await (await fetch(`${server.url}/v1/workflows/run/${runId}`, { headers: auth })).json();
      expect(again.status).toBe("paused");
      const form = await (
        await fetch(`${server.url}/v1/form/human_input/${asked.form_token}`, { headers: auth })
      ).json();
      expect(form).toMatchObject({ form_content: asked.form_content, user_actions: asked.actions });

      const wrong = await fetch(`${server.url}/v1/form/human_input/${asked.form_token}`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ inputs: { note: "x" }, action: "publish", user: "u1" }),
      });
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toMatchObject({ code: "invalid_form_data", status: 400 });

      const answered = await fetch(`${server.url}/v1/form/human_input/${asked.form_token}`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ inputs: { note: "looks good" }, action: "approve", user: "u1" }),
      });
      expect(answered.status).toBe(200);
      expect(await answered.json()).toEqual({});
      const rest = await sse(await fetch(`${server.url}/v1/workflow/${runId}/events?user=u1`, { headers: auth }));
      expect(rest.map((e) => e.event)).toEqual([
        "human_input_form_filled",
        "node_finished",
        "node_started",
        "node_finished",
        "node_started",
        "node_finished",
        "node_started",
        "node_finished",
        "workflow_finished",
      ]);
      expect(rest[0]!.data).toMatchObject({ action_id: "approve", submitted_data: { note: "looks good" } });
      expect(rest.filter((e) => e.event === "node_started").map((e) => e.data.node_id)).toEqual(["yes", "agg", "end"]);
      expect(rest.at(-1)!.data).toMatchObject({
        status: "succeeded",
        outputs: { out: "approved: looks good / ticket-42 on cats" },
      });

      const twice = await fetch(`${server.url}/v1/form/human_input/${asked.form_token}`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ inputs: { note: "again" }, action: "reject", user: "u1" }),
      });
      expect(twice.status).toBe(412);
      expect(await twice.json()).toMatchObject({ code: "human_input_form_submitted", status: 412 });
    } finally {
      await server.stop("SIGTERM");
    }

    expect(hits).toEqual(["/hit?topic=cats"]);
    const stores = await openStores(join(dir, "weft.db"));
    try {
      const runId = (await stores.runs.listRuns({ limit: 1 }))[0]!.id;
      const attempts = await stores.runs.attempts(runId);
      const count = (id: string) => attempts.filter((a) => a.nodeId === id).length;
      expect([count("start"), count("fetch"), count("draft"), count("yes"), count("end")]).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await stores.close();
    }
  }, 240_000);
});
