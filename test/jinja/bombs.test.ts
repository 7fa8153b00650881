/**
 * Template bombs from the outside probe (issue 16, item 1) and variants: each fails its node with a
 * typed jinja.* error instead of crashing the process (V8 fatal error on `range(300000000)`) or
 * blocking the event loop with no deadline. Before the fix every one of these either killed the test
 * process or ran for minutes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { closeJinjaWorkers, DEFAULT_BUDGET, renderBounded, renderJinja } from "../../src/jinja/index.js";
import { createLlmService } from "../../src/llm/index.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { type ReplayServer, startReplayServer } from "../support/replay-server.js";

/** [template, variables, expected code] — the probe's list first, then variants of each class. */
const BOMBS: Array<[string, Record<string, unknown>, string]> = [
  // The probe's five.
  ["{{ range(300000000)|length }}", {}, "jinja.too_large"],
  // The library lexes 1e9 as `1 e9` (no exponent literals): still refused, typed.
  ["{{ range(1e9)|length }}", {}, "jinja.render"],
  ["{% for i in range(100000000) %}{% endfor %}", {}, "jinja.too_large"],
  ["{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}", {}, "jinja.too_many_steps"],
  ["{{ range(3e7)|join }}", {}, "jinja.render"],
  // Variants: the same sizes written as integers, ranges with a start and step, loops over inputs.
  ["{{ range(1000000000)|length }}", {}, "jinja.too_large"],
  ["{{ range(30000000)|join }}", {}, "jinja.too_large"],
  ["{{ range(0, 300000000, 2)|length }}", {}, "jinja.too_large"],
  ["{{ range(300000000, 0, -1)|length }}", {}, "jinja.too_large"],
  [
    "{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}",
    { r: Array(1000).fill(0) },
    "jinja.too_many_steps",
  ],
  ["{% for i in range(100000) %}{% for j in range(100000) %}{{ j }}{% endfor %}{% endfor %}", {}, "jinja.too_long"],
  // Growth by doubling: strings and lists.
  ['{% set s = "ab" %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}{{ s|length }}', {}, "jinja.too_large"],
  [
    "{% set ns = namespace(a=[1]) %}{% for i in range(40) %}{% set ns.a = ns.a + ns.a %}{% endfor %}{{ ns.a|length }}",
    {},
    "jinja.too_large",
  ],
  // A captured block (set block, macro) that never reaches the output still may not grow without bound.
  [
    "{% set x %}{% for i in range(100000) %}{% for j in range(100) %}xxxxxxxxxx{% endfor %}{% endfor %}{% endset %}{{ x|length }}",
    {},
    "jinja.too_large",
  ],
  [
    "{% macro m() %}{% for i in range(100000) %}{{ s }}{% endfor %}{% endmacro %}{{ m()|length }}",
    { s: "y".repeat(100) },
    "jinja.too_large",
  ],
  // Unbounded recursion.
  ["{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", {}, "jinja.too_deep"],
];

describe("template bombs fail the node with a typed error", () => {
  afterAll(() => closeJinjaWorkers());

  for (const [template, vars, code] of BOMBS) {
    it(`${code}: ${template.slice(0, 90)}`, { timeout: 120_000 }, async () => {
      const wf = buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [{ variable: "d", type: "json_object" }] },
          tpl("t", template, Object.fromEntries(Object.keys(vars).map((k) => [k, ["start", "d", k]]))),
          { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["t", "output"] }] },
        ],
        edges: [
          ["start", "t"],
          ["t", "end"],
        ],
      });
      const res = await runWorkflow(wf, { inputs: { d: vars } });
      expect(res.status).toBe("failed");
      expect(res.error).toMatchObject({ code, nodeId: "t" });
      const attempt = res.trace.find((a) => a.nodeId === "t");
      expect(attempt?.error?.code).toBe(code);
    });
  }
});

describe("the output cap is enforced while the output is built", () => {
  it("stops at the cap, not after building a gigabyte", () => {
    // 100,000 × 10,000 characters would be 1e9 characters; the render stops as soon as it passes 400,000.
    const source = "{% for i in range(100000) %}{{ s }}{% endfor %}";
    const err = (() => {
      try {
        renderBounded(source, { s: "z".repeat(10_000) });
      } catch (e) {
        return e as { code: string; message: string };
      }
    })();
    expect(err?.code).toBe("jinja.too_long");
    expect(err?.message).toMatch(/while rendering/);
  });

  it("an output exactly at the cap renders; one character more does not", () => {
    const cap = DEFAULT_BUDGET.maxOutput;
    expect(renderBounded("{{ s }}", { s: "a".repeat(cap) })).toHaveLength(cap);
    expect(() => renderBounded("{{ s }}!", { s: "a".repeat(cap) })).toThrow(
      expect.objectContaining({ code: "jinja.too_long" }),
    );
  });

  it("a macro printed many times counts once per character of output", () => {
    const out = renderBounded("{% macro m() %}{{ s }}{% endmacro %}{% for i in range(30) %}{{ m() }}{% endfor %}", {
      s: "q".repeat(10_000),
    });
    expect(out).toHaveLength(300_000);
  });

  it("large inputs may be measured and sliced; only what the template computes is capped", () => {
    const big = "w".repeat(DEFAULT_BUDGET.maxChars + 10);
    expect(renderBounded("{{ doc|length }} {{ doc[:3] }} {{ doc|trim|length }}", { doc: big })).toBe(
      `${big.length} www ${big.length}`,
    );
    const many = Array.from({ length: DEFAULT_BUDGET.maxItems + 5 }, (_, i) => i);
    expect(renderBounded("{{ xs|length }} {{ (xs|reverse|list)[0] }}", { xs: many })).toBe(
      `${many.length} ${many.length - 1}`,
    );
  });

  it("range stays Python-compatible below the cap", () => {
    expect(
      renderBounded(
        "{{ range(3)|list }}|{{ range(1, 10, 3)|join(',') }}|{{ range(10, 0, -4)|join(',') }}|{{ range(5, 1)|length }}",
        {},
      ),
    ).toBe("[0, 1, 2]|1,4,7|10,6,2|0");
    expect(renderBounded("{{ range(100000)|length }}", {})).toBe("100000");
    expect(() => renderBounded("{{ range(1, 2, 0)|list }}", {})).toThrow(
      expect.objectContaining({ code: "jinja.render" }),
    );
  });

  it("a variable named like a global wins, as in Jinja2's render(**vars)", () => {
    expect(renderBounded("{{ range }}", { range: "mine" })).toBe("mine");
  });
});

describe("wall clock, memory and cancellation off the main thread", () => {
  afterEach(() => closeJinjaWorkers());

  // Few steps, each one slow: only the wall clock can stop this.
  const slow = "{% for i in range(100000) %}{{ xs|sort|length }}{% endfor %}";
  const xs = Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 200_000);

  it("a render that outlives its wall clock is killed with jinja.timeout", { timeout: 120_000 }, async () => {
    await expect(renderJinja(slow, { xs }, { timeoutMs: 1_000 })).rejects.toMatchObject({ code: "jinja.timeout" });
    // The killed thread is replaced: the next render works.
    expect(await renderJinja("{{ 1 + 1 }}", {})).toBe("2");
  });

  it("a node's timeout_seconds stops a running template", { timeout: 120_000 }, async () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "d", type: "json_object" }] },
        tpl("t", slow, { xs: ["start", "d", "xs"] }, { timeout_seconds: 1 }),
        { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["t", "output"] }] },
      ],
      edges: [
        ["start", "t"],
        ["t", "end"],
      ],
    });
    const started = Date.now();
    const res = await runWorkflow(wf, { inputs: { d: { xs } } });
    expect(res.error).toMatchObject({ code: "node.timeout", nodeId: "t" });
    // Well under the renderer's own 10 s default: the node's timeout ended it.
    expect(Date.now() - started).toBeLessThan(9_000);
  });

  it("a render that needs more memory than its thread has fails with jinja.memory", { timeout: 120_000 }, async () => {
    // Each `|upper` makes a new flat 3 MB string; a hundred of them exceed the 256 MB thread heap.
    const source =
      "{% set ns = namespace(l=[]) %}{% for i in range(200) %}{% set ns.l = ns.l + [(s ~ i)|upper] %}{% endfor %}{{ ns.l|length }}";
    // The wall clock is not what is tested here: on a loaded machine building 256 MB takes longer than the 10 s default.
    const render = renderJinja(source, { s: "m".repeat(3_000_000) }, { timeoutMs: 100_000 });
    await expect(render).rejects.toMatchObject({ code: "jinja.memory" });
    expect(await renderJinja("ok", {})).toBe("ok");
  });

  it("an aborted signal stops the render with jinja.cancelled", { timeout: 120_000 }, async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 500);
    await expect(renderJinja(slow, { xs }, { signal: ac.signal })).rejects.toMatchObject({ code: "jinja.cancelled" });
  });

  it("the event loop stays free while a bomb renders", { timeout: 120_000 }, async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    await expect(renderJinja(slow, { xs }, { timeoutMs: 1_500 })).rejects.toMatchObject({ code: "jinja.timeout" });
    clearInterval(timer);
    // A synchronous render would have let no timer fire at all.
    expect(ticks).toBeGreaterThan(5);
  });
});

describe("jinja2 LLM prompts use the same bounded renderer", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(async () => {
    await server.close();
    await closeJinjaWorkers();
  });

  it("a bomb in a jinja2 message fails the llm node before any request is sent", { timeout: 120_000 }, async () => {
    const llm = createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL, apiKey: "k" } },
      default: "ep",
      retry: { maxRetries: 0 },
    });
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        {
          id: "llm",
          type: "llm",
          model: { provider: "openai", name: "m", mode: "chat", completion_params: {} },
          prompt_template: [
            { role: "user", edition_type: "jinja2", text: "", jinja2_text: "{{ range(300000000)|length }}" },
          ],
          context: { enabled: false, variable_selector: [] },
          vision: { enabled: false },
        },
        { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["llm", "text"] }] },
      ],
      edges: [
        ["start", "llm"],
        ["llm", "end"],
      ],
    });
    const res = await runWorkflow(wf, { services: { llm } });
    expect(res.error).toMatchObject({ code: "jinja.too_large", nodeId: "llm" });
    expect(res.error?.message).toMatch(/prompt_template\[0\]/);
    expect(server.requests).toHaveLength(0);
  });
});
