import { describe, expect, it } from "vitest";
import { globalNames, renderBounded } from "../../src/jinja/bounded.js";

// Renders share one scope of globals per range() cap (bounded.ts): nothing one render does may reach another.
describe("renders sharing the globals", () => {
  it("a variable or a set named like a global stays in its own render", () => {
    expect(renderBounded("{{ range }}|{{ true }}", { range: "mine", true: "yes" })).toBe("mine|yes");
    expect(renderBounded("{% set range = 7 %}{% set none = 'n' %}{{ range }}{{ none }}", {})).toBe("7n");
    expect(renderBounded("{{ range(3)|list }}|{{ none }}|{{ true }}", {})).toBe("[0, 1, 2]||true");
    expect(renderBounded("{{ range }}", {})).toBe("<class 'range'>");
  });

  it("a namespace is made anew for every render", () => {
    const src = "{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}";
    expect(renderBounded(src, {})).toBe("3");
    expect(renderBounded(src, {})).toBe("3");
    expect(renderBounded("{{ namespace }}", {})).toBe("<class 'jinja2.utils.Namespace'>");
  });

  it("each render meters its own range() cap, whichever render built the shared scope first", () => {
    const small = { maxSteps: 1_000, maxRange: 5, maxItems: 1_000, maxChars: 1_000, maxOutput: 1_000 };
    expect(renderBounded("{{ range(10)|length }}", {})).toBe("10");
    expect(() => renderBounded("{{ range(10)|length }}", {}, small)).toThrow(
      expect.objectContaining({ code: "jinja.too_large" }),
    );
    expect(renderBounded("{{ range(10)|length }}", {})).toBe("10");
  });

  it("lists the globals a template sees", () => {
    expect(globalNames()).toEqual(
      expect.arrayContaining([
        "namespace",
        "range",
        "raise_exception",
        "true",
        "false",
        "none",
        "True",
        "False",
        "None",
      ]),
    );
  });
});
