import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import pLimit from "p-limit";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import "../../src/nodes/code.js";
import type { StaticContext } from "../../src/ir/registry.js";
import { WorkflowSchema } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { createSandbox, SandboxError } from "../../src/sandbox/index.js";
import { corpusPath } from "../support/corpus.js";

const ROOT = corpusPath("dify-dsl");

interface CorpusCode {
  file: string;
  data: Record<string, unknown>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : /\.ya?ml$/.test(name) ? [p] : [];
  });
}

function codeNodes(): CorpusCode[] {
  if (!existsSync(ROOT)) return [];
  const out: CorpusCode[] = [];
  for (const file of walk(ROOT)) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    const nodes = (doc as { workflow?: { graph?: { nodes?: Array<{ data?: Record<string, unknown> }> } } })?.workflow
      ?.graph?.nodes;
    for (const n of nodes ?? []) {
      if (n.data?.type === "code") out.push({ file, data: n.data });
    }
  }
  return out;
}

const corpus = codeNodes();
const def = nodeCatalogue.get("code");

describe.skipIf(corpus.length === 0)("real Dify code nodes from the corpus", () => {
  it("parse with the code node schema and pass the main/output-type rules", () => {
    if (!def) throw new Error("code node not registered");
    const problems: string[] = [];
    for (const { file, data } of corpus) {
      const { type: _t, title: _ti, ...config } = data;
      const parsed = def.configSchema.safeParse(config);
      if (!parsed.success) {
        problems.push(`${file}: schema ${parsed.error.message.slice(0, 100)}`);
        continue;
      }
      const node = { id: "n", type: "code", title: "", config };
      const ctx: StaticContext = {
        workflow: WorkflowSchema.parse({ mode: "workflow", nodes: [node], edges: [] }),
        node,
        nodeById: () => undefined,
        childrenOf: () => [],
        typeOf: () => undefined,
      };
      for (const d of def.rules?.(parsed.data, ctx) ?? []) {
        if (d.severity === "error") problems.push(`${file}: ${d.code} ${d.message}`);
      }
    }
    // Real exports are well formed; a handful of hand-edited files may lack main.
    expect(problems.length, problems.join("\n")).toBeLessThanOrEqual(Math.ceil(corpus.length * 0.03));
  });

  it("run in the sandbox with null inputs and always end in a typed result or error", async () => {
    const sandbox = createSandbox({ limits: { timeoutMs: 3000 } });
    const limit = pLimit(4);
    const js = corpus.filter((c) => c.data.code_language === "javascript");
    const py = corpus.filter((c) => c.data.code_language !== "javascript").slice(0, 40);
    const outcomes = await Promise.all(
      [...js, ...py].map(({ data }) =>
        limit(async () => {
          const inputs = Object.fromEntries(
            ((data.variables as Array<{ variable: string }> | undefined) ?? []).map((v) => [v.variable, null]),
          );
          try {
            await sandbox.run({
              language: data.code_language === "javascript" ? "javascript" : "python3",
              code: String(data.code ?? ""),
              inputs,
            });
            return "ok";
          } catch (e) {
            return e instanceof SandboxError ? e.code : `untyped: ${String(e)}`;
          }
        }),
      ),
    );
    const counts = outcomes.reduce<Record<string, number>>((acc, o) => {
      acc[o] = (acc[o] ?? 0) + 1;
      return acc;
    }, {});
    expect(Object.keys(counts).filter((k) => k.startsWith("untyped") || k === "sandbox.crashed")).toEqual([]);
    // Null inputs make most real code raise, but nothing may fail for being unparsable.
    expect(counts["sandbox.syntax_error"] ?? 0).toBeLessThanOrEqual(2);
  }, 180_000);
});
