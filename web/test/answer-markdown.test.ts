/** Issue 36 item 4: chat answers render Markdown; model output stays inert (it is hostile input). */
import { describe, expect, it } from "vitest";
import { answerHtml, safeHref } from "../src/run/answer-markdown";

describe("answer Markdown", () => {
  it("renders Markdown", () => {
    expect(answerHtml("**a** _b_ `c`")).toBe("<p><strong>a</strong> <em>b</em> <code>c</code></p>");
    expect(answerHtml("- x\n- y")).toContain("<li>x</li>");
  });

  it("shows raw HTML as text and drops unsafe addresses", () => {
    const html = answerHtml(
      '<script>alert(1)</script>\n\nx <b onclick="y">z</b> [l](javascript:alert(1)) ![i](javascript:x)',
    );
    expect(html).not.toMatch(/<script|<b |href="javascript|src="javascript/i);
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("&lt;b onclick=&quot;y&quot;&gt;");
  });

  it("keeps web, mail, same-site and inline image addresses only", () => {
    expect(safeHref("https://e.com/a?b=1", "link")).toBe("https://e.com/a?b=1");
    expect(safeHref("mailto:a@b.c", "link")).toBe("mailto:a@b.c");
    expect(safeHref("/files/1/file-preview?sign=x", "image")).toBe("/files/1/file-preview?sign=x");
    expect(safeHref("//evil.example/x", "link")).toBeUndefined();
    expect(safeHref("data:text/html;base64,AAAA", "link")).toBeUndefined();
    expect(safeHref("data:image/png;base64,AAAA", "image")).toBe("data:image/png;base64,AAAA");
    expect(safeHref(" JaVaScRiPt:alert(1)", "link")).toBeUndefined();
  });

  it("escapes quotes in addresses and titles", () => {
    expect(answerHtml('[t](https://e.com/"onmouseover=x "ti\\"tle")')).not.toContain('"onmouseover');
  });
});
