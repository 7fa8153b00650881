/**
 * Dify's "custom" segmentation (FixedRecursiveCharacterTextSplitter): the text is split at the fixed
 * separator; a piece longer than maxLength is split again at the first of paragraph, line, sentence, word
 * boundaries (then characters) that makes pieces fit, neighbours sharing up to `overlap` characters. Pieces
 * are not merged across the fixed separator. Lengths are characters, as current Dify counts them.
 */
import type { Chunking } from "../store/chunking.js";

const RECURSIVE = ["\n\n", "\n", "。", ". ", " ", ""];

/** `\n` written as two characters in a CLI flag or JSON means a newline, as in Dify's form. */
export function unescapeSeparator(s: string): string {
  return s.replace(/\\n/g, "\n").replace(/\\t/g, "\t");
}

export function preprocess(text: string, c: Chunking): string {
  let t = text.replace(/\r\n?/g, "\n");
  if (c.removeUrlsEmails) {
    t = t.replace(/[\w.+-]+@[\w-]+\.[\w.-]+/g, "").replace(/https?:\/\/[^\s)>\]]+/g, "");
  }
  if (c.removeExtraSpaces) t = t.replace(/[ \t\f\v\u00a0\u3000]{2,}/g, " ").replace(/\n{3,}/g, "\n\n");
  return t;
}

/** Merge small splits into pieces of at most `max`, carrying up to `overlap` characters forward. */
function merge(splits: string[], sep: string, max: number, overlap: number): string[] {
  const out: string[] = [];
  const cur: string[] = [];
  let len = 0;
  const joined = () => cur.join(sep).trim();
  for (const s of splits) {
    const add = s.length + (cur.length > 0 ? sep.length : 0);
    if (len + add > max && cur.length > 0) {
      const piece = joined();
      if (piece) out.push(piece);
      while (cur.length > 0 && (len > overlap || len + add > max)) {
        len -= cur[0]!.length + (cur.length > 1 ? sep.length : 0);
        cur.shift();
      }
    }
    cur.push(s);
    len += s.length + (cur.length > 1 ? sep.length : 0);
  }
  const last = joined();
  if (last) out.push(last);
  return out;
}

function recursive(text: string, seps: string[], max: number, overlap: number): string[] {
  const i = seps.findIndex((s) => s === "" || text.includes(s));
  const sep = seps[i] ?? "";
  const rest = seps.slice(i + 1);
  const parts = sep === "" ? [...text] : text.split(sep);
  const out: string[] = [];
  let small: string[] = [];
  for (const p of parts) {
    if (p.length <= max) small.push(p);
    else {
      if (small.length > 0) out.push(...merge(small, sep, max, overlap));
      small = [];
      out.push(...(rest.length > 0 ? recursive(p, rest, max, overlap) : [p]));
    }
  }
  if (small.length > 0) out.push(...merge(small, sep, max, overlap));
  return out;
}

export function chunkText(text: string, c: Chunking): string[] {
  const t = preprocess(text, c);
  const sep = unescapeSeparator(c.separator);
  const out: string[] = [];
  for (const piece of t.split(sep)) {
    const p = piece.trim();
    if (!p) continue;
    if (p.length <= c.maxLength) out.push(p);
    else out.push(...recursive(p, RECURSIVE, c.maxLength, c.overlap).filter((x) => x.trim() !== ""));
  }
  return out;
}

/** A parent chunk (the context returned) and its children (the pieces searched), as Dify's hierarchical index. */
export interface ParentChunk {
  content: string;
  children: string[];
}

// Dify drops a splitter's leftover leading sentence mark from every parent and child chunk.
const dropLeadingMark = (s: string) => (s.startsWith(".") || s.startsWith("。") ? s.slice(1).trim() : s);

/**
 * Dify's parent-child chunking (chunk_structure `hierarchical_model`): parents are the `paragraph` chunks of the
 * separator/maxLength/overlap settings, or the whole document (`full-doc`); each parent is split again with
 * the subchunk settings (Dify's `subchunk_segmentation`) into the children that are indexed and searched.
 * A parent without a child (only marks) is dropped, as Dify stores none.
 */
export function chunkParentChild(text: string, c: Chunking): ParentChunk[] {
  const parents = c.parentMode === "full-doc" ? [preprocess(text, c).trim()] : chunkText(text, c).map(dropLeadingMark);
  const sub: Chunking = {
    ...c,
    separator: c.subchunkSeparator,
    maxLength: c.subchunkMaxLength,
    overlap: c.subchunkOverlap,
  };
  return parents
    .filter((p) => p !== "")
    .map((content) => ({
      content,
      children: chunkText(content, sub)
        .map(dropLeadingMark)
        .filter((x) => x !== ""),
    }))
    .filter((p) => p.children.length > 0);
}
