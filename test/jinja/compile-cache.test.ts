import { describe, expect, it } from "vitest";
import { compileJinja, renderBounded } from "../../src/jinja/bounded.js";
import { JinjaError, renderJinja } from "../../src/jinja/index.js";

describe("parsed templates are reused", () => {
  it("the same source renders each call's own variables and budget", () => {
    const src = "{% for x in xs %}{{ x }}-{% endfor %}{{ name }}";
    expect(compileJinja(src)).toBe(compileJinja(src));
    expect(renderBounded(src, { xs: [1, 2], name: "a" })).toBe("1-2-a");
    expect(renderBounded(src, { xs: ["q"], name: "b" })).toBe("q-b");
    const small = { maxSteps: 20, maxRange: 100, maxItems: 1_000, maxChars: 1_000, maxOutput: 1_000 };
    const many = Array.from({ length: 50 }, (_, i) => i);
    expect(() => renderBounded(src, { xs: many, name: "c" }, small)).toThrow(
      expect.objectContaining({ code: "jinja.too_many_steps" }),
    );
    expect(renderBounded(src, { xs: [], name: "d" })).toBe("d");
  });

  it("a syntax error is reported on every call, never remembered as a template", () => {
    for (let i = 0; i < 2; i++) {
      let error: unknown;
      try {
        compileJinja("{% for x in %}");
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(JinjaError);
      expect((error as JinjaError).code).toBe("jinja.syntax");
    }
  });

  it("a template first rendered inline and then over the inline budget still renders whole", async () => {
    const src = "{% for i in range(n) %}x{% endfor %}";
    expect(await renderJinja(src, { n: 3 })).toBe("xxx");
    // 5,000 iterations are over the main thread's 2,000 steps: the worker renders it from the same source.
    expect((await renderJinja(src, { n: 5_000 })).length).toBe(5_000);
    expect(await renderJinja(src, { n: 2 })).toBe("xx");
  });
});
