/**
 * JavaScript shared by several code nodes, pasted into each node's code (a code node is self-contained:
 * the sandbox has no modules). SOP-Bench keeps list cells as Python literals (`['a']`, `[{'name': 'x'}]`).
 */
export const PY_LITERAL_JS = String.raw`
function parsePy(text) {
  var i = 0;
  function fail(why) { throw new Error("cannot parse Python literal at " + i + ": " + why); }
  function ws() { while (i < text.length && /\s/.test(text[i])) i++; }
  function value() {
    ws();
    var c = text[i];
    if (c === undefined) fail("unexpected end");
    if (c === "[" || c === "(") return seq(c === "[" ? "]" : ")");
    if (c === "{") return dict();
    if (c === "'" || c === '"') return str(c);
    var m = /^(True|False|None|true|false|null)\b/.exec(text.slice(i));
    if (m) { i += m[0].length; return m[0] === "True" || m[0] === "true" ? true : m[0] === "False" || m[0] === "false" ? false : null; }
    var n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i));
    if (n) { i += n[0].length; return Number(n[0]); }
    fail("unexpected " + c);
  }
  function seq(close) {
    i++; var out = [];
    for (;;) {
      ws();
      if (text[i] === close) { i++; return out; }
      out.push(value()); ws();
      if (text[i] === ",") i++; else if (text[i] !== close) fail("expected , or " + close);
    }
  }
  function dict() {
    i++; var out = {};
    for (;;) {
      ws();
      if (text[i] === "}") { i++; return out; }
      var k = value(); ws();
      if (text[i] !== ":") fail("expected :");
      i++; out[String(k)] = value(); ws();
      if (text[i] === ",") i++; else if (text[i] !== "}") fail("expected , or }");
    }
  }
  function str(q) {
    i++; var out = "";
    while (i < text.length && text[i] !== q) {
      if (text[i] === "\\") { var e = text[i + 1]; out += e === "n" ? "\n" : e === "t" ? "\t" : (e || ""); i += 2; }
      else out += text[i++];
    }
    if (text[i] !== q) fail("unterminated string");
    i++; return out;
  }
  var v = value(); ws();
  if (i !== text.length) fail("trailing text");
  return v;
}
`;
