import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportDify, importDify } from "../../src/dsl/dify/index.js";
import { loadWorkflowFile, parseWorkflowText } from "../../src/dsl/load.js";
import { ImportError, SchemaError } from "../../src/ir/errors.js";
import { asExported } from "../support/dsl-version.js";
import { corpusFiles, readCorpus } from "./corpus.js";

const weft = {
  weft: 1,
  name: "w",
  mode: "workflow",
  nodes: [
    { id: "1", type: "start", title: "S", config: { variables: [] } },
    { id: "2", type: "end", title: "E", config: { outputs: [] } },
  ],
  edges: [{ source: "1", target: "2" }],
};

function caught(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

describe("parseWorkflowText", () => {
  it("reads Weft JSON and applies schema defaults", () => {
    const r = parseWorkflowText(JSON.stringify(weft));
    expect(r.format).toBe("weft");
    expect(r.workflow.edges[0]).toEqual({ source: "1", sourcePort: "source", target: "2" });
    expect(r.workflow.environment_variables).toEqual([]);
  });

  it("recognises Weft JSON by shape without the marker, and names it from the hint", () => {
    const { weft: _w, name: _n, ...bare } = weft;
    const r = parseWorkflowText(JSON.stringify(bare), "from-file");
    expect(r.format).toBe("weft");
    expect(r.workflow.name).toBe("from-file");
  });

  it("maps schema issues to path and reason", () => {
    const bad = { ...weft, mode: "chat", nodes: [{ id: "", type: "start" }] };
    const e = caught(() => parseWorkflowText(JSON.stringify(bad))) as SchemaError;
    expect(e).toBeInstanceOf(SchemaError);
    expect(e.code).toBe("weft.schema_invalid");
    const issues = e.details.issues as { path: string; message: string }[];
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(["mode", "nodes[0].id"]));
    expect(e.message).toContain("nodes[0].id");
  });

  it("rejects broken JSON with a position, and an unknown weft version", () => {
    const e = caught(() => parseWorkflowText('{\n  "weft": 1,\n  "nodes": [,]\n}')) as ImportError;
    expect(e).toBeInstanceOf(ImportError);
    expect(e.code).toBe("weft.not_json");
    expect(e.message).toMatch(/line 3/);
    expect((caught(() => parseWorkflowText(JSON.stringify({ ...weft, weft: 2 }))) as ImportError).code).toBe(
      "weft.version_unsupported",
    );
  });

  it("reads Dify YAML, and a Dify document written as JSON", () => {
    const yaml = readCorpus(corpusFiles()[0] as string);
    const a = parseWorkflowText(yaml, "hint");
    expect(a.format).toBe("dify");
    expect(a.workflow).toEqual(importDify(yaml, { nameHint: "hint" }).workflow);
    const asJson = JSON.stringify({
      app: { name: "j", mode: "workflow" },
      version: "0.6.0",
      workflow: { graph: { nodes: [], edges: [] } },
    });
    const b = parseWorkflowText(asJson);
    expect(b.format).toBe("dify");
    expect(b.workflow.name).toBe("j");
  });

  it("reads every corpus workflow back unchanged from Weft JSON", { timeout: 120_000 }, () => {
    let n = 0;
    for (const f of corpusFiles()) {
      const wf = importDify(readCorpus(f)).workflow;
      const back = parseWorkflowText(JSON.stringify(wf));
      expect(back.format).toBe("weft");
      expect(back.workflow).toEqual(wf);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(163);
  });

  it("passes Dify import errors through", () => {
    expect((caught(() => parseWorkflowText("app: {mode: chat}\n")) as ImportError).code).toBe("dsl.not_workflow_app");
  });
});

describe("loadWorkflowFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-load-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads Dify and Weft files, naming nameless workflows after the file", async () => {
    const y = join(dir, "my flow.yml");
    writeFileSync(y, "app: {mode: workflow}\nversion: '0.6.0'\nworkflow: {graph: {nodes: [], edges: []}}\n");
    const a = await loadWorkflowFile(y);
    expect(a.workflow.name).toBe("my flow");
    const j = join(dir, "w.json");
    writeFileSync(j, JSON.stringify(weft));
    expect((await loadWorkflowFile(j)).format).toBe("weft");
  });

  it("round-trips a file written by the exporter", async () => {
    const wf = importDify(readCorpus(corpusFiles()[5] as string)).workflow;
    const p = join(dir, "exported.yml");
    writeFileSync(p, exportDify(wf));
    expect((await loadWorkflowFile(p)).workflow).toEqual(asExported(wf));
  });

  it("gives typed errors for missing, oversized and invalid files, naming the path", async () => {
    await expect(loadWorkflowFile(join(dir, "nope.yml"))).rejects.toMatchObject({ code: "dsl.file_not_found" });
    await expect(loadWorkflowFile(dir)).rejects.toMatchObject({ code: "dsl.file_not_regular" });
    const big = join(dir, "big.yml");
    writeFileSync(big, Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    await expect(loadWorkflowFile(big)).rejects.toMatchObject({ code: "dsl.too_large" });
    const bad = join(dir, "bad.yml");
    writeFileSync(bad, "app: [\n");
    const e = await loadWorkflowFile(bad).catch((x: unknown) => x as ImportError);
    expect(e).toBeInstanceOf(ImportError);
    expect((e as ImportError).code).toBe("dsl.not_yaml");
    expect((e as ImportError).message).toContain(bad);
  });
});
