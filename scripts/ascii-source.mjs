// JavaScript source made ASCII without changing what it does, for the CLI bundle (scripts/build.mjs). One non-ASCII
// character anywhere (an em dash in a comment) makes node decode the whole 4 MB file the slow way and V8 hold and
// scan it as a two-byte string: ~60 ms of every `weft run`. esbuild already escapes strings, templates and
// identifiers; what it leaves is comments and regular expression literals. Both are found with acorn's tokenizer:
// a comment's character becomes its \u escape (text nobody runs), a regular expression's becomes the \u escape that
// matches the same character (with or without the u flag). Anything else fails the build, naming where it is (a
// tagged template such as String.raw, whose raw text an escape would change: write the escape in the source).
import { tokenizer } from "acorn";

const NON_ASCII = /[^\x00-\x7f]/g;
const escape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `text` with every non-ASCII character of its comments and regular expression literals escaped. */
export function asciiSource(text, name) {
  const at = [...text.matchAll(NON_ASCII)].map((m) => m.index);
  if (at.length === 0) return text;
  const escapable = []; // [start, end) of comments and regular expressions that hold one of `at`
  const holds = (start, end) => {
    const i = at.findIndex((p) => p >= start);
    return i !== -1 && at[i] < end;
  };
  const onComment = (_block, _text, start, end) => {
    if (holds(start, end)) escapable.push([start, end, "comment"]);
  };
  for (const t of tokenizer(text, { ecmaVersion: "latest", sourceType: "script", onComment })) {
    if (t.type.label === "regexp" && holds(t.start, t.end)) escapable.push([t.start, t.end, "regexp"]);
  }
  let out = "";
  let from = 0;
  for (const p of at) {
    const span = escapable.find(([s, e]) => p >= s && p < e);
    if (!span) throw new Error(`${name}: a non-ASCII character outside any comment or regular expression, at ${where(text, p)}`);
    if (span[2] === "regexp" && text[p - 1] === "\\")
      throw new Error(`${name}: an escaped non-ASCII character in a regular expression, at ${where(text, p)}`);
    out += text.slice(from, p) + escape(text[p]);
    from = p + 1;
  }
  return out + text.slice(from);
}

function where(text, p) {
  const line = text.slice(0, p).split("\n").length;
  return `line ${line}: ${JSON.stringify(text.slice(Math.max(0, p - 40), p + 40))}`;
}
