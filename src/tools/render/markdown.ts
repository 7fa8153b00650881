import { marked, type Token, type Tokens } from "marked";

/** A styled piece of inline text. */
export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  strike?: boolean;
  link?: string;
  /** A hard line break before this run's text. */
  breakBefore?: boolean;
}

/** The block structure the DOCX and PDF writers share, so both read markdown the same way. */
export type Block =
  | { kind: "heading"; level: number; runs: Run[] }
  | { kind: "paragraph"; runs: Run[] }
  | { kind: "list"; ordered: boolean; start: number; items: Block[][] }
  | { kind: "code"; lang: string; text: string }
  | { kind: "table"; header: Run[][]; rows: Run[][][] }
  | { kind: "quote"; blocks: Block[] }
  | { kind: "hr" };

type Style = Omit<Run, "text" | "breakBefore">;

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

function inline(tokens: Token[] | undefined, style: Style = {}): Run[] {
  const out: Run[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "strong":
        out.push(...inline((t as Tokens.Strong).tokens, { ...style, bold: true }));
        break;
      case "em":
        out.push(...inline((t as Tokens.Em).tokens, { ...style, italic: true }));
        break;
      case "del":
        out.push(...inline((t as Tokens.Del).tokens, { ...style, strike: true }));
        break;
      case "codespan":
        out.push({ ...style, code: true, text: decodeEntities((t as Tokens.Codespan).text) });
        break;
      case "link":
        out.push(...inline((t as Tokens.Link).tokens, { ...style, link: (t as Tokens.Link).href }));
        break;
      case "image":
        out.push({ ...style, text: `[${(t as Tokens.Image).text || "image"}]` });
        break;
      case "br":
        out.push({ ...style, text: "", breakBefore: true });
        break;
      case "text": {
        const tt = t as Tokens.Text;
        if (tt.tokens && tt.tokens.length > 0) out.push(...inline(tt.tokens, style));
        else out.push({ ...style, text: decodeEntities(tt.text) });
        break;
      }
      case "escape":
        out.push({ ...style, text: decodeEntities((t as Tokens.Escape).text) });
        break;
      case "html":
        // Inline HTML tags carry no text of their own worth keeping in a document.
        break;
      default:
        if ("text" in t && typeof t.text === "string") out.push({ ...style, text: decodeEntities(t.text) });
    }
  }
  return out;
}

function blocks(tokens: Token[]): Block[] {
  const out: Block[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case "heading":
        out.push({ kind: "heading", level: (t as Tokens.Heading).depth, runs: inline((t as Tokens.Heading).tokens) });
        break;
      case "paragraph":
        out.push({ kind: "paragraph", runs: inline((t as Tokens.Paragraph).tokens) });
        break;
      case "text": {
        // Block-level text appears inside tight list items.
        const tt = t as Tokens.Text;
        out.push({ kind: "paragraph", runs: tt.tokens ? inline(tt.tokens) : [{ text: decodeEntities(tt.text) }] });
        break;
      }
      case "list": {
        const l = t as Tokens.List;
        out.push({
          kind: "list",
          ordered: l.ordered,
          start: typeof l.start === "number" ? l.start : 1,
          items: l.items.map((it) => {
            const inner = blocks(it.tokens);
            if (it.task) {
              const mark = it.checked ? "☑ " : "☐ ";
              const first = inner.find((b) => b.kind === "paragraph");
              if (first && first.kind === "paragraph") first.runs.unshift({ text: mark });
            }
            return inner;
          }),
        });
        break;
      }
      case "code":
        out.push({ kind: "code", lang: (t as Tokens.Code).lang ?? "", text: (t as Tokens.Code).text });
        break;
      case "table": {
        const tb = t as Tokens.Table;
        out.push({
          kind: "table",
          header: tb.header.map((c) => inline(c.tokens)),
          rows: tb.rows.map((r) => r.map((c) => inline(c.tokens))),
        });
        break;
      }
      case "blockquote":
        out.push({ kind: "quote", blocks: blocks((t as Tokens.Blockquote).tokens) });
        break;
      case "hr":
        out.push({ kind: "hr" });
        break;
      case "html": {
        const text = (t as Tokens.HTML).text.replace(/<[^>]+>/g, "").trim();
        if (text) out.push({ kind: "paragraph", runs: [{ text: decodeEntities(text) }] });
        break;
      }
      default:
        break; // space, def
    }
  }
  return out;
}

/**
 * LLMs often wrap the whole document in a ```markdown fence; the exporter should export the document,
 * not a code block containing it.
 */
export function stripOuterFence(md: string): string {
  const m = /^\s*```(?:markdown|md)?[ \t]*\n([\s\S]*?)\n```\s*$/i.exec(md);
  return m ? (m[1] ?? "") : md;
}

export function parseMarkdown(md: string): Block[] {
  return blocks(marked.lexer(stripOuterFence(md), { gfm: true }));
}

export function runsText(runs: Run[]): string {
  return runs.map((r) => (r.breakBefore ? `\n${r.text}` : r.text)).join("");
}

/** Every table in the markdown, as rows of plain cell text, header first. */
export function markdownTables(md: string): string[][][] {
  const out: string[][][] = [];
  const walk = (bs: Block[]) => {
    for (const b of bs) {
      if (b.kind === "table") out.push([b.header.map(runsText), ...b.rows.map((r) => r.map(runsText))]);
      else if (b.kind === "quote") walk(b.blocks);
      else if (b.kind === "list") for (const it of b.items) walk(it);
    }
  };
  walk(parseMarkdown(md));
  return out;
}

/** Fenced code blocks with their language tag. */
export function markdownCodeBlocks(md: string): Array<{ lang: string; text: string }> {
  return marked
    .lexer(stripOuterFence(md), { gfm: true })
    .filter((t): t is Tokens.Code => t.type === "code")
    .map((t) => ({ lang: (t.lang ?? "").trim().toLowerCase(), text: t.text }));
}

export function markdownToHtmlDocument(md: string, title = "Document"): string {
  const body = marked.parse(stripOuterFence(md), { async: false, gfm: true }) as string;
  const esc = title.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>${esc}</title>\n</head>\n<body>\n${body}</body>\n</html>\n`;
}
