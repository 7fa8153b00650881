/**
 * Traces over OTLP/HTTP to a real receiver on loopback: a workflow with an LLM node (replay model server), an
 * iteration and a tool call inside it gives one trace whose span tree, GenAI attributes and token counts are
 * what Langfuse and Phoenix read. Every case runs once per OTLP/HTTP protocol, chosen as operators do, with
 * OTEL_EXPORTER_OTLP_PROTOCOL; the receiver decodes each body by its content type (protobuf with the official
 * opentelemetry-proto definitions).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import type { ToolService } from "../../src/ir/services.js";
import { createLlmService } from "../../src/llm/index.js";
import { ObservabilityConfigError, tracingSettings } from "../../src/observability/config.js";
import { tracedServices } from "../../src/observability/traced-services.js";
import { startTracing, type Tracing } from "../../src/observability/tracing.js";
import { GuardedHttpService } from "../../src/tools/http.js";
import { buildWorkflow } from "../support/build.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

let model: ReplayServer;
let receiver: OtlpReceiver;
beforeAll(async () => {
  model = await startReplayServer();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await model.close();
  await receiver.close();
});
beforeEach(() => {
  model.reset();
  receiver.spans.length = 0;
  receiver.contentTypes.length = 0;
  receiver.authorizations.length = 0;
});

const SECRET = "sk-very-secret-value-123";
const tools: ToolService = {
  async invoke(inv) {
    return { text: `looked up ${String(inv.parameters.q)}`, files: [], json: [] };
  },
};

/** With `httpUrl`, an HTTP node after the iteration sends the secret in its URL and header; `toolSecret` puts it in the tool's query. */
function workflow(o: { httpUrl?: string; toolSecret?: boolean } = {}) {
  const http = o.httpUrl
    ? [
        {
          id: "call",
          type: "http-request",
          method: "get",
          url: o.httpUrl,
          headers: "Authorization:Bearer {{#env.KEY#}}",
          params: "",
          body: { type: "none", data: [] },
          authorization: { type: "no-auth" },
          timeout: { max_connect_timeout: 5, max_read_timeout: 5, max_write_timeout: 5 },
        },
      ]
    : [];
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "items", type: "json_object" }] },
      {
        id: "llm",
        type: "llm",
        model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} },
        prompt_template: [{ role: "user", text: "Summarise {{#start.items#}} key={{#env.KEY#}}" }],
        context: { enabled: false, variable_selector: [] },
        vision: { enabled: false },
      },
      {
        id: "it",
        type: "iteration",
        iterator_selector: ["start", "items", "list"],
        output_selector: ["look", "text"],
        start_node_id: "it_start",
      },
      { id: "it_start", type: "iteration-start", parentId: "it" },
      {
        id: "look",
        type: "tool",
        parentId: "it",
        provider_id: "demo",
        provider_type: "builtin",
        tool_name: "lookup",
        tool_parameters: {
          q: { type: "mixed", value: o.toolSecret ? "{{#it.item#}} {{#env.KEY#}}" : "{{#it.item#}}" },
        },
      },
      ...http,
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "summary", value_selector: ["llm", "text"] },
          { variable: "found", value_selector: ["it", "output"] },
        ],
      },
    ],
    edges: [
      ["start", "llm"],
      ["llm", "it"],
      ["it_start", "look"],
      ...((o.httpUrl
        ? [
            ["it", "call"],
            ["call", "end"],
          ]
        : [["it", "end"]]) as Array<[string, string]>),
    ],
    environment_variables: [{ name: "KEY", value_type: "secret", value: SECRET }],
  });
}

function llmService() {
  return createLlmService({
    endpoints: { ep: { provider: "openai-compatible", baseURL: model.openaiBaseURL, apiKey: "k" } },
    default: "ep",
    retry: { maxRetries: 0 },
  });
}

async function traceOf(tracing: Tracing, runId: string): Promise<ReceivedSpan[]> {
  await tracing.flush();
  const run = receiver.spans.find((s) => s.attributes["weft.run.id"] === runId && s.name.startsWith("run "));
  expect(run).toBeDefined();
  return receiver.spans.filter((s) => s.traceId === run!.traceId);
}

const CONTENT_TYPE = { "http/json": "application/json", "http/protobuf": "application/x-protobuf" } as const;

describe.each(["http/json", "http/protobuf"] as const)("OTLP tracing over %s", (protocol) => {
  let tracing: Tracing;
  beforeAll(() => {
    const settings = tracingSettings(undefined, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: "weft-test",
    });
    expect(settings.protocol).toBe(protocol);
    tracing = startTracing(settings)!;
  });
  afterAll(() => tracing.shutdown());
  afterEach(() => {
    // What arrived was really sent in this protocol's encoding.
    for (const t of receiver.contentTypes) expect(t).toContain(CONTENT_TYPE[protocol]);
  });

  it("one trace per run: run → node attempts → model and tool spans, GenAI attributes and tokens", async () => {
    model.enqueue(reply.text("two items", { usage: { input: 17, output: 5 } }));
    const r = await runWorkflow(workflow(), {
      inputs: { items: { list: ["a", "b"] } },
      appId: "app-1",
      services: tracedServices(tracing.tracer, { llm: llmService(), tools }, true),
      observer: tracing.observer("api"),
    });
    expect(r.status).toBe("succeeded");
    const spans = await traceOf(tracing, r.runId);
    const byName = (n: string) => spans.filter((s) => s.name === n);
    const [run] = spans.filter((s) => s.name.startsWith("run "));
    expect(run!.parentSpanId).toBe("");
    expect(run!.attributes).toMatchObject({
      "weft.app.id": "app-1",
      "weft.run.source": "api",
      "weft.run.status": "succeeded",
    });
    expect(run!.resource["service.name"]).toBe("weft-test");

    const node = (id: string) => spans.filter((s) => s.attributes["weft.node.id"] === id);
    for (const id of ["start", "llm", "it", "end"]) {
      expect(node(id)).toHaveLength(1);
      expect(node(id)[0]!.parentSpanId).toBe(run!.spanId);
    }
    // The tool node runs once per item, each attempt a child of the iteration's span.
    const iteration = node("it")[0]!;
    const looks = node("look");
    expect(looks).toHaveLength(2);
    for (const l of looks) expect(l.parentSpanId).toBe(iteration.spanId);
    const toolSpans = byName("execute_tool lookup");
    expect(toolSpans).toHaveLength(2);
    expect(toolSpans.map((t) => t.parentSpanId).sort()).toEqual(looks.map((l) => l.spanId).sort());
    expect(toolSpans[0]!.attributes["gen_ai.tool.name"]).toBe("lookup");

    const [chat] = byName("chat gpt-4o-mini");
    expect(chat!.parentSpanId).toBe(node("llm")[0]!.spanId);
    expect(chat!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.system": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 17,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    // Content was opted in: recorded, but never the secret the prompt rendered.
    expect(String(chat!.attributes["gen_ai.input.messages"])).toContain("[secret]");
    expect(JSON.stringify(spans)).not.toContain(SECRET);
    expect(node("llm")[0]!.attributes["gen_ai.usage.input_tokens"]).toBe(17);
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
  });

  it("without opting in, prompts and completions stay out; a failing node's span carries its error code", async () => {
    model.enqueue(reply.text("ok"));
    const failing: ToolService = {
      async invoke() {
        throw Object.assign(new Error(`tool down ${SECRET}`), { code: "tool.failed" });
      },
    };
    const r = await runWorkflow(workflow(), {
      inputs: { items: { list: ["a"] } },
      services: tracedServices(tracing.tracer, { llm: llmService(), tools: failing }, false),
      observer: tracing.observer("cli"),
    });
    expect(r.status).toBe("failed");
    const spans = await traceOf(tracing, r.runId);
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(chat.attributes["gen_ai.input.messages"]).toBeUndefined();
    expect(chat.attributes["gen_ai.output.messages"]).toBeUndefined();
    const tool = spans.find((s) => s.name === "execute_tool lookup")!;
    expect(tool.attributes["weft.error.code"]).toBe("tool.failed");
    expect(tool.status.code).toBe(2);
    const run = spans.find((s) => s.name.startsWith("run "))!;
    expect(run.attributes["weft.run.status"]).toBe("failed");
    expect(typeof run.attributes["weft.error.code"]).toBe("string");
    expect(JSON.stringify(spans)).not.toContain(SECRET);
  });

  it("model spans carry what Langfuse maps to a generation; content only with opt-in", async () => {
    model.enqueue(reply.text("summary text", { usage: { input: 11, output: 4 } }));
    const r = await runWorkflow(workflow(), {
      inputs: { items: { list: ["x"] } },
      services: tracedServices(tracing.tracer, { llm: llmService(), tools }, true),
      observer: tracing.observer("api"),
    });
    expect(r.status).toBe("succeeded");
    const spans = await traceOf(tracing, r.runId);
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    // Langfuse: gen_ai.operation.name "chat" → a generation; its model, usage, input and output from these.
    expect(chat.attributes["gen_ai.operation.name"]).toBe("chat");
    expect(chat.attributes["gen_ai.request.model"]).toBe("gpt-4o-mini");
    expect(chat.attributes["gen_ai.response.model"]).toBe("gpt-4o-mini");
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toBe(11);
    expect(chat.attributes["gen_ai.usage.output_tokens"]).toBe(4);
    const input = JSON.parse(String(chat.attributes["gen_ai.input.messages"])) as Array<{ role: string }>;
    expect(input.map((m) => m.role)).toContain("user");
    const output = JSON.parse(String(chat.attributes["gen_ai.output.messages"])) as Array<{ content: string }>;
    expect(output[0]!.content).toBe("summary text");
    // execute_tool → a Langfuse tool observation; the trace's name is its root span's, the run's.
    expect(spans.find((s) => s.name === "execute_tool lookup")!.attributes["gen_ai.operation.name"]).toBe(
      "execute_tool",
    );
    expect(spans.filter((s) => s.parentSpanId === "").map((s) => s.name)).toEqual([`run ${workflow().name}`]);
  });

  it("an env secret read by model, tool and HTTP nodes is in no span attribute", async () => {
    const seen: string[] = [];
    const target = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      res.end(`echo ${req.headers.authorization}`);
    });
    await new Promise<void>((ok) => target.listen(0, "127.0.0.1", ok));
    const port = (target.address() as AddressInfo).port;
    try {
      model.enqueue(reply.text(`I saw ${SECRET}`, { usage: { input: 3, output: 2 } }));
      const wf = workflow({ httpUrl: `http://127.0.0.1:${port}/v/{{#env.KEY#}}?key={{#env.KEY#}}`, toolSecret: true });
      const http = new GuardedHttpService({ allowPrivate: true });
      const r = await runWorkflow(wf, {
        inputs: { items: { list: ["a"] } },
        services: tracedServices(tracing.tracer, { llm: llmService(), tools, http }, true),
        observer: tracing.observer("api"),
      });
      expect(r.status).toBe("succeeded");
      // The secret really was used: in the URL path, the query and the header the server got.
      expect(seen).toEqual([`/v/${SECRET}?key=${SECRET} Bearer ${SECRET}`]);
      const spans = await traceOf(tracing, r.runId);
      const get = spans.find((s) => s.name === "GET")!;
      expect(get.attributes["url.full"]).toBe(`http://127.0.0.1:${port}/v/[secret]`);
      expect(get.attributes["http.response.status_code"]).toBe(200);
      expect(spans.find((s) => s.name.startsWith("chat "))!.attributes["gen_ai.output.messages"]).toContain("[secret]");
      for (const s of spans) expect(JSON.stringify(s), s.name).not.toContain(SECRET);
    } finally {
      await new Promise((ok) => target.close(ok));
    }
  });
});

describe("OTLP settings", () => {
  it("sends OTEL_EXPORTER_OTLP_HEADERS (Langfuse's Basic credential) with every export; refuses a malformed one", async () => {
    // 16 bytes: the base64 ends in "==", which must survive the key=value split.
    const auth = Buffer.from("pk-lf-1:sk-lf-23").toString("base64");
    expect(auth.endsWith("==")).toBe(true);
    const settings = tracingSettings(undefined, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ""),
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Basic ${auth}, x-extra=a%20b`,
    });
    expect(settings.headers).toEqual({ Authorization: `Basic ${auth}`, "x-extra": "a b" });
    const t = startTracing(settings)!;
    t.tracer.startSpan("probe").end();
    await t.flush();
    await t.shutdown();
    expect(receiver.spans.map((s) => s.name)).toEqual(["probe"]);
    expect(receiver.authorizations).toEqual([`Basic ${auth}`]);
    expect(() =>
      tracingSettings(undefined, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization",
      }),
    ).toThrow(/not key=value/);
  });

  it("is off by default and refuses a protocol it cannot speak", () => {
    expect(tracingSettings(undefined, {}).enabled).toBe(false);
    expect(startTracing(tracingSettings(undefined, {}))).toBeUndefined();
    expect(
      tracingSettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318", OTEL_SDK_DISABLED: "true" }).enabled,
    ).toBe(false);
    expect(tracingSettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318/" }).endpoint).toBe(
      "http://x:4318/v1/traces",
    );
    expect(() => tracingSettings(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(ObservabilityConfigError);
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318" };
    expect(tracingSettings(undefined, { ...on, OTEL_BSP_SCHEDULE_DELAY: "100" }).scheduleDelayMs).toBe(100);
    expect(() => tracingSettings(undefined, { ...on, OTEL_BSP_SCHEDULE_DELAY: "soon" })).toThrow(
      /OTEL_BSP_SCHEDULE_DELAY/,
    );
    // Tracing off: variables it would read are not its business.
    expect(
      tracingSettings(undefined, { OTEL_BSP_SCHEDULE_DELAY: "soon", OTEL_EXPORTER_OTLP_HEADERS: "x" }).enabled,
    ).toBe(false);
    expect(() => tracingSettings({ enabled: true } as never, {})).toThrow(/no OTLP endpoint/);
  });
});
