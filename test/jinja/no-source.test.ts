/**
 * A template cannot print host source (issue 28 F): `{{ namespace }}` printed the library's JavaScript.
 * Every global of the template environment, every method of strings, lists, mappings and numbers, macros
 * and `caller` are printed, concatenated and passed into an error message here; none shows source.
 */
import { Environment } from "@huggingface/jinja";
import { afterAll, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { globalNames } from "../../src/jinja/bounded.js";
import { closeJinjaWorkers, renderBounded, renderJinja } from "../../src/jinja/index.js";
import { buildWorkflow, tpl } from "../support/build.js";

/** What JavaScript source looks like in output; a repr such as `<class 'range'>` matches none of it. */
const SOURCE = /=>|function\s*\w*\s*\(|\breturn\b|\bconst\b|\blet\b|[{};]\s*\n|\.js\b|\/node_modules\//;

function rendered(template: string): string {
  try {
    return renderBounded(template, { s: "text", xs: [1, 2], o: { a: 1 }, n: 1.5, i: 2 });
  } catch (e) {
    // A refusal is fine as long as its message does not carry the source either.
    return (e as Error).message;
  }
}

function expectNoSource(template: string): void {
  const out = rendered(template);
  expect(out, template).not.toMatch(SOURCE);
  expect(out.length, `${template} → ${out}`).toBeLessThan(200);
}

/** Method names the library gives each kind of value (`'a'.upper`, `[].append`, `{}.items` …). */
function methods(value: unknown): string[] {
  const env = new Environment();
  env.set("v", value);
  const v = env.variables.get("v") as unknown as { builtins: Map<string, unknown> };
  return [...v.builtins.keys()];
}

describe("templates never print host source", () => {
  afterAll(() => closeJinjaWorkers());

  it("the globals Jinja2 has print as Jinja2 prints them", () => {
    expect(rendered("{{ namespace }}")).toBe("<class 'jinja2.utils.Namespace'>");
    expect(rendered("{{ range }}")).toBe("<class 'range'>");
    expect(rendered("{{ namespace ~ '' }}|{{ 'a' + range }}|{{ [range] | join(',') }}")).toBe(
      "<class 'jinja2.utils.Namespace'>|a<class 'range'>|<class 'range'>",
    );
  });

  it("every global of the template environment, printed, concatenated and in an error message", () => {
    const names = globalNames();
    expect(names).toEqual(expect.arrayContaining(["namespace", "range", "raise_exception", "true", "none"]));
    for (const g of names) {
      for (const t of [
        `{{ ${g} }}`,
        `{{ ${g} ~ '' }}`,
        `{{ '' ~ ${g} }}`,
        `{{ 'x' + ${g} }}`,
        `{{ raise_exception(${g}) }}`,
        `{% set f = ${g} %}{{ f }}`,
      ])
        expectNoSource(t);
    }
  });

  it("every method of strings, lists, mappings and numbers, and macros and caller", () => {
    const kinds: Array<[string, unknown]> = [
      ["s", "text"],
      ["xs", [1, 2]],
      ["o", { a: 1 }],
      ["n", 1.5],
      ["i", 2],
    ];
    let count = 0;
    for (const [name, value] of kinds) {
      for (const m of methods(value)) {
        for (const t of [`{{ ${name}.${m} }}`, `{{ ${name}.${m} ~ '' }}`, `{{ raise_exception(${name}.${m}) }}`])
          expectNoSource(t);
        count++;
      }
    }
    expect(count).toBeGreaterThan(15);
    expectNoSource("{% macro m() %}x{% endmacro %}{{ m }}{{ m ~ '' }}");
    expectNoSource("{% macro m() %}{{ caller }}{{ caller ~ '' }}{% endmacro %}{% call m() %}y{% endcall %}");
    expectNoSource("{% for x in xs %}{% for k, v in loop.items() %}{{ k }}={{ v }};{% endfor %}{% endfor %}");
  });

  it("through the render workers and a template-transform node too", { timeout: 120_000 }, async () => {
    expect(await renderJinja("{{ namespace }} {{ range }}", {})).toBe(
      "<class 'jinja2.utils.Namespace'> <class 'range'>",
    );
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        tpl("t", "{{ namespace }}|{{ ''.upper }}", {}),
        { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["t", "output"] }] },
      ],
      edges: [
        ["start", "t"],
        ["t", "end"],
      ],
    });
    const res = await runWorkflow(wf, { inputs: {} });
    expect(res.outputs.out).toBe("<class 'jinja2.utils.Namespace'>|<function>");
  });
});
