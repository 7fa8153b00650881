import "../../src/nodes/llm.js";
import { type Workflow, type WorkflowInput, WorkflowSchema } from "../../src/ir/workflow.js";
import { seededRandom } from "../../src/util/random.js";

type NodeIn = WorkflowInput["nodes"][number];
type EdgeIn = WorkflowInput["edges"][number];

/** Seeded, so generated workflows are reproducible. */
export const rng = seededRandom;

const MODEL = { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} };

function llm(id: string, reads: string[][], extra: Partial<NodeIn> = {}): NodeIn {
  const refs = reads.map((s) => `{{#${s.join(".")}#}}`).join("\n");
  return {
    id,
    type: "llm",
    title: id,
    config: {
      model: MODEL,
      prompt_template: [
        { role: "system", text: "You summarise. If the text is long, be brief." },
        { role: "user", text: `Use:\n${refs}` },
      ],
      context: { enabled: false, variable_selector: [] },
      vision: { enabled: false },
    },
    ...extra,
  };
}

/**
 * A valid workflow of about `size` nodes: a spine of steps, each a plain LLM step, an if-else diamond
 * merged by a variable-aggregator, a parallel fan-out re-joined, or an iteration. Every read names a
 * value guaranteed on all paths (non-optional template reads), so the analyser must find no error.
 */
export function genWorkflow(size: number, seed: number): Workflow {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const nodes: NodeIn[] = [
    {
      id: "start",
      type: "start",
      title: "start",
      config: {
        variables: [
          { variable: "query", label: "q", type: "paragraph", required: true },
          { variable: "items", label: "items", type: "array[string]", required: true },
        ],
      },
    },
  ];
  const edges: EdgeIn[] = [];
  const avail: string[][] = [["start", "query"]];
  const reads = () => [pick(avail), pick(avail.slice(-4))];
  let tail = "start";
  let k = 0;
  const id = (p: string) => `${p}${k++}`;
  const edge = (s: string, t: string, port = "source") => edges.push({ source: s, sourcePort: port, target: t });
  while (nodes.length < size - 1) {
    const x = r();
    if (x < 0.4) {
      const a = id("llm");
      nodes.push(llm(a, reads()));
      edge(tail, a);
      avail.push([a, "text"]);
      tail = a;
    } else if (x < 0.65) {
      const c = id("if");
      const yes = id("yes");
      const no = id("no");
      const m = id("merge");
      nodes.push({
        id: c,
        type: "if-else",
        title: c,
        config: {
          cases: [
            {
              case_id: "true",
              logical_operator: "and",
              conditions: [{ variable_selector: pick(avail), comparison_operator: "contains", value: "x" }],
            },
          ],
        },
      });
      nodes.push(llm(yes, reads()), llm(no, reads()));
      nodes.push({
        id: m,
        type: "variable-aggregator",
        title: m,
        config: {
          output_type: "string",
          variables: [
            [yes, "text"],
            [no, "text"],
          ],
        },
      });
      edge(tail, c);
      edge(c, yes, "true");
      edge(c, no, "false");
      edge(yes, m);
      edge(no, m);
      avail.push([m, "output"], [c, "result"]);
      tail = m;
    } else if (x < 0.85) {
      const p = id("p");
      const q = id("q");
      const j = id("join");
      nodes.push(llm(p, reads()), llm(q, reads()));
      nodes.push(
        llm(j, [
          [p, "text"],
          [q, "text"],
        ]),
      );
      edge(tail, p);
      edge(tail, q);
      edge(p, j);
      edge(q, j);
      avail.push([p, "text"], [q, "text"], [j, "text"]);
      tail = j;
    } else {
      const it = id("it");
      const s = `${it}start`;
      const inner = id("inner");
      nodes.push({
        id: it,
        type: "iteration",
        title: it,
        config: { iterator_selector: ["start", "items"], output_selector: [inner, "text"], start_node_id: s },
      });
      nodes.push({ id: s, type: "iteration-start", title: s, parentId: it, config: {} });
      nodes.push(llm(inner, [[it, "item"], pick(avail)], { parentId: it }));
      edge(s, inner);
      edge(tail, it);
      avail.push([it, "output"]);
      tail = it;
    }
  }
  nodes.push({
    id: "end",
    type: "end",
    title: "end",
    config: { outputs: [{ variable: "out", value_selector: avail[avail.length - 1]! }] },
  });
  edge(tail, "end");
  return WorkflowSchema.parse({ name: `gen-${size}-${seed}`, mode: "workflow", nodes, edges });
}
