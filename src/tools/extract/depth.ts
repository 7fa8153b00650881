import { Parser } from "htmlparser2";
import { DocumentError } from "../errors.js";

class TooDeep extends Error {}

/**
 * Refuse markup nested deeper than `maxDepth` before any tree is built: the tree parsers and the text
 * walkers after them recurse per level (a million nested `<div>` overflows the stack, and building
 * that tree alone takes seconds and hundreds of MB). htmlparser2's tokenizer streams, keeps no tree,
 * and applies HTML's implied closes and void elements, so the count is the nesting a parser would build.
 */
export function assertDepth(markup: string, maxDepth: number, what: string, xml = false): void {
  let depth = 0;
  const parser = new Parser(
    {
      onopentag() {
        depth++;
        if (depth > maxDepth) throw new TooDeep();
      },
      onclosetag() {
        depth--;
      },
    },
    { xmlMode: xml, recognizeSelfClosing: xml },
  );
  try {
    parser.end(markup);
  } catch (e) {
    if (!(e instanceof TooDeep)) throw e;
    throw new DocumentError("document.too_complex", `${what}: elements are nested more than ${maxDepth} deep`, {
      limit: "maxDepth",
      maxDepth,
    });
  }
}
