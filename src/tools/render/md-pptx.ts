/**
 * Markdown → PowerPoint (.pptx), offline, slides laid out the way md_exporter's md_to_pptx lays them out
 * (it runs pandoc's pptx writer):
 * - a YAML front matter `title` (with `subtitle`, `author`, `date`) makes a title slide;
 * - the slide level is the highest heading level that is directly followed by content somewhere; headings
 *   above it make section slides (title only), headings at it start a slide with that title, deeper ones
 *   stay in the slide as bold lines;
 * - a horizontal rule (`---`) starts a new slide without a title;
 * - `::: notes … :::` becomes the slide's speaker notes; other `:::` fences (columns) are unwrapped;
 * - paragraphs, bullet and numbered lists (nested), code, quotes and tables are kept; images become their
 *   alt text, as in the DOCX export (nothing is fetched).
 * Text boxes are marked shrink-to-fit, so PowerPoint scales long slides down rather than cutting them.
 */
import * as pptxModule from "pptxgenjs";
import { parse as parseYaml } from "yaml";
import { type Block, parseMarkdown, type Run, stripOuterFence } from "./markdown.js";

interface Slide {
  title?: Run[];
  section?: boolean;
  blocks: Block[];
  notes: string[];
}

// The package ships CommonJS-shaped types over an ES build: TypeScript sees the class at
// `default.default`, Node loads it at `default`. Take whichever is there.
type Ctor = typeof pptxModule.default.default;
const loaded = pptxModule.default as unknown as { default?: Ctor };
const PptxGenJS: Ctor = loaded.default ?? (loaded as unknown as Ctor);
type Pres = InstanceType<Ctor>;
type TextRun = pptxModule.default.TextProps;
type TextOptions = pptxModule.default.TextPropsOptions;

const MONO = "Courier New";

function frontMatter(md: string): { meta: Record<string, unknown>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n/.exec(md);
  if (!m) return { meta: {}, body: md };
  try {
    const meta = parseYaml(m[1]!);
    if (meta && typeof meta === "object" && !Array.isArray(meta))
      return { meta: meta as Record<string, unknown>, body: md.slice(m[0].length) };
  } catch {
    // Not YAML: a slide rule followed by text, left in the body.
  }
  return { meta: {}, body: md };
}

/** Pulls `::: notes` blocks out (replaced by a marker paragraph) and unwraps other fenced divs. */
function extractNotes(md: string): { md: string; notes: string[] } {
  const notes: string[] = [];
  const out: string[] = [];
  let capture: string[] | undefined;
  for (const line of md.split(/\r?\n/)) {
    if (capture) {
      if (/^:{3,}\s*$/.test(line)) {
        out.push("", `\u0000notes${notes.length}`, "");
        notes.push(capture.join("\n").trim());
        capture = undefined;
      } else capture.push(line);
    } else if (/^:{3,}\s*\{?\s*\.?notes\s*\}?\s*$/i.test(line)) capture = [];
    else if (!/^:{3,}/.test(line)) out.push(line);
  }
  if (capture) {
    notes.push(capture.join("\n").trim());
    out.push("", `\u0000notes${notes.length - 1}`, "");
  }
  return { md: out.join("\n"), notes };
}

const plain = (runs: Run[]) => runs.map((r) => r.text).join("");
const noteIndex = (b: Block) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks the notes placeholder extractNotes leaves, which no Markdown text contains
  b.kind === "paragraph" ? /^\u0000notes(\d+)$/.exec(plain(b.runs).trim())?.[1] : undefined;

function slideLevel(blocks: Block[]): number {
  let level = 0;
  for (const [i, b] of blocks.entries()) {
    const next = blocks[i + 1];
    if (b.kind === "heading" && next && next.kind !== "heading" && next.kind !== "hr")
      level = level === 0 ? b.level : Math.min(level, b.level);
  }
  return level === 0 ? 1 : level;
}

function toSlides(blocks: Block[], notes: string[]): Slide[] {
  const level = slideLevel(blocks);
  const slides: Slide[] = [];
  let cur: Slide | undefined;
  const open = (s: Slide) => {
    slides.push(s);
    cur = s;
    return s;
  };
  for (const b of blocks) {
    const n = noteIndex(b);
    if (n !== undefined) (cur ?? open({ blocks: [], notes: [] })).notes.push(notes[Number(n)]!);
    else if (b.kind === "hr") open({ blocks: [], notes: [] });
    else if (b.kind === "heading" && b.level < level) open({ title: b.runs, section: true, blocks: [], notes: [] });
    else if (b.kind === "heading" && b.level === level) open({ title: b.runs, blocks: [], notes: [] });
    else if (cur && !cur.section) cur.blocks.push(b);
    else open({ blocks: [b], notes: [] });
  }
  return slides.filter((s) => s.title || s.blocks.length > 0 || s.notes.length > 0);
}

function runs(rs: Run[], base: TextOptions = {}): TextRun[] {
  return rs.map((r) => ({
    text: r.text,
    options: {
      ...base,
      ...(r.bold ? { bold: true } : {}),
      ...(r.italic ? { italic: true } : {}),
      ...(r.strike ? { strike: "sngStrike" as const } : {}),
      ...(r.code ? { fontFace: MONO } : {}),
      ...(r.link ? { hyperlink: { url: r.link } } : {}),
      ...(r.breakBefore ? { softBreakBefore: true } : {}),
    },
  }));
}

/** One paragraph: its runs, the last one ending the line. */
function para(rs: TextRun[], opts: TextOptions = {}): TextRun[] {
  const list = rs.length > 0 ? rs : [{ text: "" }];
  return list.map((r, i) => ({
    text: r.text,
    options: { ...(i === 0 ? opts : {}), ...r.options, ...(i === list.length - 1 ? { breakLine: true } : {}) },
  }));
}

/** Slide body as text runs; tables are returned separately (they are their own shapes). */
function body(blocks: Block[], depth = 0): { text: TextRun[]; tables: Block[] } {
  const text: TextRun[] = [];
  const tables: Block[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case "heading":
        text.push(...para(runs(b.runs, { bold: true })));
        break;
      case "paragraph":
        text.push(...para(runs(b.runs), depth > 0 ? { indentLevel: depth } : {}));
        break;
      case "list":
        for (const [i, item] of b.items.entries()) {
          const [first, ...rest] = item;
          const bullet = b.ordered ? { type: "number" as const, numberStartAt: b.start } : true;
          const head = first && first.kind === "paragraph" ? runs(first.runs) : [];
          text.push(...para(head, { bullet: i === 0 || !b.ordered ? bullet : { type: "number" }, indentLevel: depth }));
          const inner = body(first && first.kind === "paragraph" ? rest : item, depth + 1);
          text.push(...inner.text);
          tables.push(...inner.tables);
        }
        break;
      case "code":
        for (const line of b.text.split("\n")) text.push(...para([{ text: line, options: { fontFace: MONO } }]));
        break;
      case "quote": {
        const inner = body(b.blocks, depth + 1);
        text.push(...inner.text.map((r) => ({ ...r, options: { ...r.options, italic: true } })));
        tables.push(...inner.tables);
        break;
      }
      case "table":
        tables.push(b);
        break;
      case "hr":
        break;
    }
  }
  return { text, tables };
}

function tableRows(b: Extract<Block, { kind: "table" }>): pptxModule.default.TableRow[] {
  const cell = (rs: Run[], bold = false): pptxModule.default.TableCell => ({
    text: runs(rs, bold ? { bold: true } : {}),
  });
  return [b.header.map((c) => cell(c, true)), ...b.rows.map((r) => r.map((c) => cell(c)))];
}

const W = 10;
const H = 5.625;

function render(pres: Pres, s: Slide): void {
  const slide = pres.addSlide();
  if (s.notes.length > 0) slide.addNotes(s.notes.join("\n\n"));
  if (s.section) {
    slide.addText(runs(s.title ?? []), { x: 0.5, y: 1.8, w: W - 1, h: 1.5, fontSize: 36, bold: true, align: "center" });
    return;
  }
  let top = 0.3;
  if (s.title) {
    slide.addText(runs(s.title), { x: 0.5, y: top, w: W - 1, h: 0.9, fontSize: 28, bold: true, fit: "shrink" });
    top += 1.0;
  }
  const { text, tables } = body(s.blocks);
  const room = H - top - 0.3;
  const tableShare = tables.length > 0 ? (text.length > 0 ? 0.5 : 1) : 0;
  if (text.length > 0) {
    const h = room * (1 - tableShare);
    slide.addText(text, { x: 0.5, y: top, w: W - 1, h, fontSize: 16, valign: "top", fit: "shrink" });
    top += h;
  }
  for (const t of tables) {
    const h = (room * tableShare) / tables.length;
    slide.addTable(tableRows(t as Extract<Block, { kind: "table" }>), {
      x: 0.5,
      y: top,
      w: W - 1,
      fontSize: 12,
      border: { type: "solid", pt: 0.5, color: "999999" },
      autoPage: false,
    });
    top += h;
  }
}

export async function markdownToPptx(md: string, title?: string): Promise<Uint8Array> {
  const { meta, body: rest } = frontMatter(stripOuterFence(md));
  const { md: withoutNotes, notes } = extractNotes(rest);
  const pres = new PptxGenJS();
  pres.layout = "LAYOUT_16x9";
  const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : undefined);
  const docTitle = str(meta.title) ?? title;
  if (docTitle) pres.title = docTitle;
  if (str(meta.author)) pres.author = str(meta.author)!;
  if (str(meta.title)) {
    const slide = pres.addSlide();
    slide.addText(str(meta.title)!, { x: 0.5, y: 1.5, w: W - 1, h: 1.4, fontSize: 40, bold: true, align: "center" });
    const sub = [str(meta.subtitle), str(meta.author), str(meta.date)].filter(Boolean).join("\n");
    if (sub) slide.addText(sub, { x: 0.5, y: 3.0, w: W - 1, h: 1.2, fontSize: 20, align: "center" });
  }
  for (const s of toSlides(parseMarkdown(withoutNotes), notes)) render(pres, s);
  const out = await pres.write({ outputType: "uint8array" });
  return out as Uint8Array;
}
