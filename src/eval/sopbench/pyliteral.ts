import { SopBenchError } from "./errors.js";

/**
 * Parses the Python literals SOP-Bench stores in CSV cells (`['a', 'b']`, `[{'name': 'x', 'ownership': 100.0}]`,
 * `[true,true]`): strings in either quote style, numbers, True/False/None (and JSON true/false/null), lists,
 * tuples and dicts. This is the subset `ast.literal_eval` accepts that the data actually uses.
 */
export type PyValue = string | number | boolean | null | PyValue[] | { [k: string]: PyValue };

export function parsePyLiteral(text: string): PyValue {
  let i = 0;
  const fail = (why: string): never => {
    throw new SopBenchError("sopbench.pyliteral", `Cannot parse Python literal at ${i}: ${why}`, { text });
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const value = (): PyValue => {
    ws();
    const c = text[i];
    if (c === undefined) return fail("unexpected end");
    if (c === "[" || c === "(") return list(c === "[" ? "]" : ")");
    if (c === "{") return dict();
    if (c === "'" || c === '"') return str(c);
    const m = /^(True|False|None|true|false|null)\b/.exec(text.slice(i));
    if (m) {
      i += m[0].length;
      const w = m[0];
      return w === "True" || w === "true" ? true : w === "False" || w === "false" ? false : null;
    }
    const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i));
    if (n) {
      i += n[0].length;
      return Number(n[0]);
    }
    return fail(`unexpected "${c}"`);
  };
  const list = (close: string): PyValue[] => {
    i++;
    const out: PyValue[] = [];
    for (;;) {
      ws();
      if (text[i] === close) {
        i++;
        return out;
      }
      out.push(value());
      ws();
      if (text[i] === ",") i++;
      else if (text[i] !== close) fail(`expected "," or "${close}"`);
    }
  };
  const dict = (): { [k: string]: PyValue } => {
    i++;
    const out: { [k: string]: PyValue } = {};
    for (;;) {
      ws();
      if (text[i] === "}") {
        i++;
        return out;
      }
      const k = value();
      ws();
      if (text[i] !== ":") fail('expected ":"');
      i++;
      out[String(k)] = value();
      ws();
      if (text[i] === ",") i++;
      else if (text[i] !== "}") fail('expected "," or "}"');
    }
  };
  const str = (q: string): string => {
    i++;
    let out = "";
    while (i < text.length && text[i] !== q) {
      if (text[i] === "\\") {
        const e = text[i + 1];
        out += e === "n" ? "\n" : e === "t" ? "\t" : (e ?? "");
        i += 2;
      } else out += text[i++];
    }
    if (text[i] !== q) fail("unterminated string");
    i++;
    return out;
  };
  const v = value();
  ws();
  if (i !== text.length) fail("trailing text");
  return v;
}
