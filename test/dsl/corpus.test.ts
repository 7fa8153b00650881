import { afterAll, describe, expect, it } from "vitest";
import {
  CURRENT_DSL_VERSION,
  exportDify,
  firstDifference,
  importDify,
  readYaml,
  semanticEqual,
} from "../../src/dsl/dify/index.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { corpusFiles, manifest, readCorpus } from "./corpus.js";

const files = corpusFiles();
const rows = new Map(manifest().map((r) => [r.local_path, r]));
const tally = { files: files.length, imported: 0, roundTripped: 0, exportStable: 0, sourceKept: 0 };

type J = Record<string, unknown>;
const asRecord = (v: unknown): J => v as J;

/**
 * Every value of `src` is present, unchanged, in `out` (out may add keys). Graph nodes are matched by id, canvas
 * type and position, because notes move to the end of the node list on export.
 */
function missingFrom(src: unknown, out: unknown, path: string): string | undefined {
  if (Array.isArray(src)) {
    if (!Array.isArray(out)) return `${path}: not a list in the export`;
    if (src.length !== out.length) return `${path}: ${src.length} items became ${out.length}`;
    let a = src;
    let b = out;
    if (path.endsWith("graph.nodes")) {
      const key = (n: unknown): string => JSON.stringify([asRecord(n).id, asRecord(n).type, asRecord(n).position]);
      a = [...src].sort((x, y) => (key(x) < key(y) ? -1 : 1));
      b = [...out].sort((x, y) => (key(x) < key(y) ? -1 : 1));
    }
    for (let i = 0; i < a.length; i++) {
      const m = missingFrom(a[i], b[i], `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (typeof src === "object" && src !== null) {
    if (typeof out !== "object" || out === null || Array.isArray(out)) return `${path}: not a mapping in the export`;
    for (const [k, v] of Object.entries(src)) {
      if (!Object.hasOwn(out, k)) return `${path}.${k}: missing from the export`;
      const m = missingFrom(v, (out as J)[k], `${path}.${k}`);
      if (m) return m;
    }
    return undefined;
  }
  return Object.is(src, out) ? undefined : `${path}: ${JSON.stringify(src)} became ${JSON.stringify(out)}`;
}

describe("Dify corpus", () => {
  it("walks every file the manifest lists (163+)", () => {
    expect(files.length).toBeGreaterThanOrEqual(163);
    for (const p of rows.keys()) expect(files).toContain(p);
  });

  describe.each(files)("%s", (file) => {
    const text = readCorpus(file);

    it("imports, round-trips losslessly and exports a Dify document", () => {
      const first = importDify(text, { nameHint: "hint" });
      tally.imported++;
      const wf = first.workflow;
      expect(WorkflowSchema.safeParse(wf).success).toBe(true);
      expect(first.warnings.every((w) => w.severity === "warning")).toBe(true);

      const row = rows.get(file);
      if (row) {
        expect(wf.mode).toBe(row.app_mode);
        expect(wf.nodes.length).toBe(row.node_count);
        expect([...new Set(wf.nodes.map((n) => n.type))].sort()).toEqual([...row.node_types].sort());
        expect(asRecord(wf.meta?.dify).version).toBe(row.dsl_version === "none" ? "0.1.0" : row.dsl_version);
      }

      const yaml = exportDify(wf);
      const second = importDify(yaml, { nameHint: "other" });
      // The export says the DSL version it is written in (ours), whatever the source said (issue 36 item 7).
      expect(second.warnings.map((w) => w.code)).not.toContain("dsl.version_older");
      const ours = {
        ...wf,
        meta: {
          ...wf.meta,
          dify: { ...asRecord(wf.meta?.dify), version: asRecord(second.workflow.meta?.dify).version },
        },
      };
      expect(asRecord(second.workflow.meta?.dify).version).toBe(CURRENT_DSL_VERSION);
      expect(firstDifference(ours, second.workflow)).toBeUndefined();
      expect(semanticEqual(ours, second.workflow)).toBe(true);
      expect(second.workflow).toEqual(ours);
      tally.roundTripped++;
      expect(exportDify(second.workflow)).toBe(yaml);
      tally.exportStable++;

      const parsed = readYaml(yaml);
      expect(parsed.ok).toBe(true);
      const doc = asRecord(parsed.ok ? parsed.value : {});
      expect(doc.kind).toBe("app");
      expect(typeof doc.version).toBe("string");
      const app = asRecord(doc.app);
      expect(app.mode).toBe(wf.mode);
      expect(typeof app.name).toBe("string");
      const block = asRecord(doc.workflow);
      expect(typeof block.features).toBe("object");
      expect(Array.isArray(block.environment_variables)).toBe(true);
      expect(Array.isArray(block.conversation_variables)).toBe(true);
      const graph = asRecord(block.graph);
      const nodes = graph.nodes as J[];
      const edges = graph.edges as J[];
      expect(graph.viewport).toBeTypeOf("object");
      const ids = new Set(nodes.map((n) => n.id));
      for (const n of nodes) {
        expect(typeof n.id).toBe("string");
        expect(String(n.type)).toMatch(/^custom(-iteration-start|-loop-start|-note)?$/);
        expect(typeof asRecord(n.data).type).toBe("string");
        expect(n.position).toMatchObject({ x: expect.any(Number), y: expect.any(Number) });
        if (n.parentId !== undefined && n.type !== "custom-note") expect(ids.has(n.parentId)).toBe(true);
      }
      for (const e of edges) {
        expect(typeof e.id).toBe("string");
        expect(typeof e.sourceHandle).toBe("string");
        expect(e.targetHandle).toBeTypeOf("string");
        expect(e.type).toBe("custom");
        const data = asRecord(e.data);
        if (ids.has(e.source)) expect(typeof data.sourceType).toBe("string");
        if (ids.has(e.target)) expect(typeof data.targetType).toBe("string");
      }

      // Nothing the source said is lost or changed in the export (it may only add Dify defaults).
      const src = readYaml(text);
      expect(src.ok).toBe(true);
      const { version: _written, ...source } = asRecord(src.ok ? src.value : {});
      expect(missingFrom(source, doc, "")).toBeUndefined();
      tally.sourceKept++;
    });
  });

  afterAll(() => {
    console.log(
      `Dify corpus: ${tally.files} files, ${tally.imported} imported, ${tally.roundTripped} round-tripped losslessly, ` +
        `${tally.exportStable} with byte-stable re-export, ${tally.sourceKept} keep every source value`,
    );
  });
});
