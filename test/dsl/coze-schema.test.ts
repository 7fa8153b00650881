import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CanvasSchema, parseCanvas } from "../../src/dsl/coze/index.js";
import { corpusPath } from "../support/corpus.js";

const COZE_CORPUS = corpusPath("coze");

function canvasFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json")) out.push(p);
    }
  };
  walk(COZE_CORPUS);
  return out.sort();
}

type J = Record<string, any>;
const load = (rel: string): J => JSON.parse(readFileSync(join(COZE_CORPUS, rel), "utf8"));

function allNodes(nodes: J[]): J[] {
  return nodes.flatMap((n) => [n, ...allNodes(n.blocks ?? [])]);
}

describe("Coze canvas schema against the golden corpus", () => {
  const files = canvasFiles();

  it("finds the corpus canvases", () => {
    // 102 canvases in 102 files (see corpus/coze/MANIFEST.md).
    expect(files.length).toBe(102);
  });

  it("parses every corpus canvas", () => {
    const failures: string[] = [];
    let nodes = 0;
    let edges = 0;
    const types = new Set<string>();
    for (const f of files) {
      const doc = JSON.parse(readFileSync(f, "utf8"));
      const r = parseCanvas(doc);
      if (!r.success) {
        failures.push(
          `${relative(COZE_CORPUS, f)}: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`,
        );
        continue;
      }
      for (const n of allNodes(r.data.nodes as J[])) {
        nodes++;
        types.add(n.type);
        edges += (n.edges ?? []).length;
      }
      edges += r.data.edges.length;
    }
    expect(failures).toEqual([]);
    // Counts over the whole corpus (nodes include loop/batch children).
    expect({ canvases: files.length - failures.length, nodes, edges }).toEqual({
      canvases: 102,
      nodes: 415,
      edges: 342,
    });
    expect(types.size).toBe(41);
    for (const t of ["1", "2", "3", "5", "6", "8", "13", "15", "21", "22", "28", "32", "45"])
      expect(types).toContain(t);
  });

  describe("rejects what the format forbids", () => {
    const base = () => load("loop_selector_variable_assign_text_processor.json");

    it("an unknown node type id", () => {
      const doc = base();
      doc.nodes[2].blocks[0].type = "7";
      const r = CanvasSchema.safeParse(doc);
      expect(r.success).toBe(false);
      expect(r.error?.issues.some((i) => i.message.includes("unknown Coze node type id"))).toBe(true);
    });

    it("a value block of an unknown kind", () => {
      const doc = base();
      doc.nodes[1].data.inputs.inputParameters[0].input.value.type = "expression";
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("a BlockInput type outside string/integer/float/boolean/object/list", () => {
      const doc = base();
      doc.nodes[1].data.inputs.inputParameters[0].input.type = "number";
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("a reference from an unknown source", () => {
      const doc = base();
      doc.nodes[1].data.inputs.inputParameters[0].input.value.content.source = "env";
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("an edge to a node that is not in its canvas", () => {
      const doc = base();
      doc.edges.push({ sourceNodeID: "100001", targetNodeID: "123456" });
      const r = CanvasSchema.safeParse(doc);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(["edges", 2, "targetNodeID"]);
    });

    it("an inner loop edge that leaves the loop body", () => {
      const doc = base();
      doc.nodes[2].edges.push({ sourceNodeID: "131543", targetNodeID: "900001" });
      const r = CanvasSchema.safeParse(doc);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(["nodes", 2, "edges", 6, "targetNodeID"]);
    });

    it("a canvas without the Exit 900001", () => {
      const doc = base();
      doc.nodes[1].id = "900002";
      doc.edges[1].targetNodeID = "900002";
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("an LLM node whose llmParam is not a list of Params", () => {
      const doc = load("sse/llm_emitter.json");
      const llm = doc.nodes.find((n: J) => n.type === "3");
      llm.data.inputs.llmParam = { modelName: "x" };
      const r = CanvasSchema.safeParse(doc);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path.slice(-3)).toEqual(["data", "inputs", "llmParam"]);
    });

    it("a condition operator outside 1..16", () => {
      const doc = base();
      doc.nodes[2].blocks[2].data.inputs.branches[0].condition.conditions[0].operator = 17;
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("a Selector port that names no branch", () => {
      const doc = base();
      // The loop body's selector has two branches: true, true_1 (and false).
      doc.nodes[2].edges[3].sourcePortID = "true_2";
      const r = CanvasSchema.safeParse(doc);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.message).toMatch(/does not name one of its 2 branches/);
    });

    it("an intent port that is not branch_N or default", () => {
      const doc = load("intent_detector_database_custom_sql.json");
      const e = doc.edges.find((x: J) => x.sourcePortID === "branch_0");
      e.sourcePortID = "class_a";
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("a loop body edge that skips the inline ports", () => {
      const doc = base();
      delete doc.nodes[2].edges[0].sourcePortID;
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
      const again = base();
      again.nodes[2].edges[5].targetPortID = "";
      expect(CanvasSchema.safeParse(again).success).toBe(false);
    });

    it("a loop that leaves through a port other than loop-output", () => {
      const doc = base();
      doc.edges[1].sourcePortID = "batch-output";
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });

    it("blocks on a node that is not a Loop or Batch", () => {
      const doc = base();
      doc.nodes[0].blocks = [doc.nodes[2].blocks[1]];
      expect(CanvasSchema.safeParse(doc).success).toBe(false);
    });
  });
});
