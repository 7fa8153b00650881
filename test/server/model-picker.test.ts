/**
 * The model picker (issue 29 item 6): GET /api/models lists the configured models as the inspector offers them
 * (provider + name, the default a new node gets); a palette node is fitted to the app (its start node's first
 * variable, the configured model) so it starts valid where the start node is not called `start`; a model the
 * configuration does not name is a warning on the node.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { parseLlmConfig } from "../../src/llm/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { newNodeConfig } from "../../src/server/new-node.js";
import { buildWorkflow } from "../support/build.js";
import { startTestServer, type TestServer } from "./helpers.js";

/** Start "begin" (first variable `topic`) → End: no node called `start`, no variable called `query`. */
const beginApp = (): Workflow => ({
  ...buildWorkflow({
    nodes: [
      {
        id: "begin",
        type: "start",
        variables: [
          { variable: "topic", label: "Topic", type: "text-input", required: true },
          { variable: "tone", label: "Tone", type: "text-input", required: false },
        ],
      },
      {
        id: "end",
        type: "end",
        outputs: [{ variable: "t", value_selector: ["begin", "topic"], value_type: "string" }],
      },
    ],
    edges: [["begin", "end"]],
  }),
  name: "begin app",
});

/** The workflow with `node` added between begin and end. */
function withNode(wf: Workflow, type: string, config: Record<string, unknown>): Workflow {
  return {
    ...wf,
    nodes: [...wf.nodes, { id: "n1", type, title: type, config }],
    edges: [
      { source: "begin", sourcePort: "source", target: "n1" },
      { source: "n1", sourcePort: "source", target: "end" },
    ],
  };
}

const MODEL = { provider: "langgenius/openai_api_compatible/openai_api_compatible", name: "house-model" };

describe("new-node template", () => {
  it("an LLM node added to an app whose start is `begin` reads begin.topic, runs the given model, and has no errors", () => {
    const config = newNodeConfig("llm", beginApp(), MODEL) as any;
    expect(config.model).toMatchObject({ provider: MODEL.provider, name: "house-model" });
    expect(JSON.stringify(config)).not.toContain("start.query");
    expect(config.prompt_template.map((m: any) => m.text)).toContain("{{#begin.topic#}}");
    const diags = analyse(withNode(beginApp(), "llm", config), nodeCatalogue).diagnostics;
    expect(diags.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("selectors of the other LLM-family examples point at begin.topic too; without a model the example's stays", () => {
    for (const type of ["question-classifier", "parameter-extractor"]) {
      const config = newNodeConfig(type, beginApp(), MODEL);
      expect(JSON.stringify(config)).toContain('["begin","topic"]');
      expect(JSON.stringify(config)).not.toContain('"start"');
      expect((config as any).model.name).toBe("house-model");
    }
    expect((newNodeConfig("llm", beginApp()) as any).model.name).toBe("gpt-4o-mini");
  });

  it("examples reading an LLM's text read begin.topic in an app without that node, and start without errors", () => {
    // Before, a Template added from the palette (or a port's +) read `llm.text` and showed "no node llm" at once.
    for (const type of ["template-transform", "variable-aggregator"]) {
      const config = newNodeConfig(type, beginApp(), MODEL);
      expect(JSON.stringify(config)).toContain('["begin","topic"]');
      expect(JSON.stringify(config)).not.toMatch(/"llm(_[ab])?"/);
      const errors = analyse(withNode(beginApp(), type, config), nodeCatalogue).diagnostics.filter(
        (d) => d.severity === "error",
      );
      expect(errors).toEqual([]);
    }
    const chat: Workflow = { ...beginApp(), mode: "advanced-chat" };
    expect((newNodeConfig("answer", chat, MODEL) as any).answer).toBe("{{#begin.topic#}}");
    // A node the app does have keeps being read: the example's reference is fitted only where it would dangle.
    const withLlm: Workflow = {
      ...beginApp(),
      nodes: [
        ...beginApp().nodes,
        { id: "llm", type: "llm", title: "LLM", config: newNodeConfig("llm", beginApp(), MODEL) },
      ],
    };
    expect((newNodeConfig("template-transform", withLlm, MODEL) as any).variables[0].value_selector).toEqual([
      "llm",
      "text",
    ]);
  });

  it("a chat app whose start has no variables reads the user's message (sys.query)", () => {
    const chat: Workflow = {
      ...beginApp(),
      mode: "advanced-chat",
      nodes: beginApp().nodes.map((n) => (n.type === "start" ? { ...n, config: { variables: [] } } : n)),
    };
    const config = newNodeConfig("llm", chat, MODEL) as any;
    expect(config.prompt_template.map((m: any) => m.text)).toContain("{{#sys.query#}}");
  });
});

describe("GET /api/models and POST /api/node-template", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      llmConfig: parseLlmConfig({
        endpoints: {
          local: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "house-model" },
          big: { provider: "openai", apiKey: "sk-never-shown", defaultModel: "gpt-4.1" },
        },
        default: "local",
        models: { "fast-model": "local" },
      }),
    });
  });
  afterAll(async () => s.stop());

  it("lists each configured model with the provider name a node uses, and the default a new node gets; no keys", async () => {
    const res = await s.api("/api/models");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.options).toEqual([
      { provider: MODEL.provider, name: "house-model", endpoint: "local" },
      { provider: "langgenius/openai/openai", name: "gpt-4.1", endpoint: "big" },
      { provider: MODEL.provider, name: "fast-model", endpoint: "local" },
    ]);
    expect(body.defaultModel).toEqual(MODEL);
    expect(JSON.stringify(body)).not.toContain("sk-never-shown");
  });

  it("the template of an LLM node for a `begin` app: the configured default model, begin.topic; no errors", async () => {
    const res = await s.api("/api/node-template", { method: "POST", json: { type: "llm", workflow: beginApp() } });
    expect(res.status).toBe(200);
    const { config } = (await res.json()) as any;
    expect(config.model).toMatchObject(MODEL);
    const analysed = (await (
      await s.api("/api/analyse", { method: "POST", json: { workflow: withNode(beginApp(), "llm", config) } })
    ).json()) as any;
    expect(analysed.diagnostics.filter((d: any) => d.severity === "error")).toEqual([]);
    expect(analysed.diagnostics.filter((d: any) => d.code === "model.not_configured")).toEqual([]);
  });

  it("a model the configuration does not name is a warning on its node; bad requests are typed", async () => {
    const config = newNodeConfig("llm", beginApp(), { provider: "openai", name: "my-own-model" });
    const analysed = (await (
      await s.api("/api/analyse", { method: "POST", json: { workflow: withNode(beginApp(), "llm", config) } })
    ).json()) as any;
    const warn = analysed.diagnostics.filter((d: any) => d.code === "model.not_configured");
    expect(warn).toHaveLength(1);
    expect(warn[0]).toMatchObject({ severity: "warning", nodeId: "n1", field: "model" });
    expect(warn[0].message).toContain("my-own-model");

    const unknown = await s.api("/api/node-template", { method: "POST", json: { type: "nope", workflow: beginApp() } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error.code).toBe("node.unknown_type");
    const noType = await s.api("/api/node-template", { method: "POST", json: { workflow: beginApp() } });
    expect(((await noType.json()) as any).error.code).toBe("request.missing_type");
    const notWf = await s.api("/api/node-template", { method: "POST", json: { type: "llm", workflow: { nodes: 3 } } });
    expect(notWf.status).toBe(422);
  });
});
