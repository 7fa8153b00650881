import type PDFDocument from "pdfkit";
import { ToolError } from "../errors.js";
import { CJK_RE, type FontFace, pdfFonts } from "./fonts.js";
import { type Block, parseMarkdown, type Run, runsText } from "./markdown.js";

type Doc = InstanceType<typeof PDFDocument>;

const HEADING_SIZES = [22, 18, 15, 13, 12, 11];
const BODY = 11;

function register(doc: Doc, name: string, f: FontFace | string): void {
  if (typeof f === "string") return; // built-in standard font, used by name
  if (f.family) doc.registerFont(name, f.path, f.family);
  else doc.registerFont(name, f.path);
}

/**
 * Markdown → PDF bytes through pdfkit (pure JS). Text with CJK characters uses a CJK face; when the
 * machine has none, the export fails with a typed error instead of writing a PDF full of blank boxes.
 */
export async function markdownToPdf(md: string, title?: string): Promise<Uint8Array> {
  const fonts = pdfFonts();
  const needsCjk = CJK_RE.test(md) || CJK_RE.test(title ?? "");
  if (needsCjk && !fonts.cjk) {
    throw new ToolError(
      "tool.font_missing",
      "the markdown contains CJK text and no CJK font is installed; install one (apt-get install fonts-noto-cjk) or set WEFT_CJK_FONT=/path/to/font.ttf",
    );
  }
  const { default: PDFKit } = await import("pdfkit");
  const doc = new PDFKit({
    size: "A4",
    margin: 56,
    info: { Title: title ?? "Document", Creator: "Weft" },
    bufferPages: false,
  });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on("end", () => resolve());
    doc.on("error", reject);
  });

  const cjk = needsCjk && fonts.cjk ? fonts.cjk : undefined;
  // One CJK face stands in for every style: CJK collections rarely ship bold/italic/mono together.
  register(doc, "regular", cjk ?? fonts.regular);
  register(doc, "bold", cjk ?? fonts.bold);
  register(doc, "italic", cjk ?? fonts.italic);
  register(doc, "mono", cjk ?? fonts.mono);
  const fontName = (k: "regular" | "bold" | "italic" | "mono") => {
    const f = cjk ?? fonts[k];
    return typeof f === "string" ? f : k;
  };

  const left = doc.page.margins.left;
  const contentWidth = () => doc.page.width - doc.page.margins.left - doc.page.margins.right;

  const writeRuns = (runs: Run[], size: number, x: number, width: number, base: "regular" | "bold" = "regular") => {
    const parts = runs.length > 0 ? runs : [{ text: "" }];
    doc.fontSize(size);
    parts.forEach((r, i) => {
      const font = r.code ? "mono" : r.bold || base === "bold" ? "bold" : r.italic ? "italic" : "regular";
      doc.font(fontName(font));
      const text = r.breakBefore ? `\n${r.text}` : r.text;
      const opts = {
        continued: i < parts.length - 1,
        width,
        link: r.link,
        underline: Boolean(r.link),
        strike: Boolean(r.strike),
      };
      if (i === 0) doc.text(text, x, doc.y, opts);
      else doc.text(text, opts);
    });
  };

  const ensureSpace = (h: number) => {
    if (doc.y + h > doc.page.height - doc.page.margins.bottom) doc.addPage();
  };

  const render = (blocks: Block[], indent: number) => {
    for (const b of blocks) {
      const x = left + indent;
      const width = contentWidth() - indent;
      switch (b.kind) {
        case "heading":
          ensureSpace(40);
          doc.moveDown(0.4);
          writeRuns(b.runs, HEADING_SIZES[b.level - 1] ?? BODY, x, width, "bold");
          doc.moveDown(0.3);
          break;
        case "paragraph":
          writeRuns(b.runs, BODY, x, width);
          doc.moveDown(0.5);
          break;
        case "code": {
          doc.font(fontName("mono")).fontSize(9.5);
          const h = doc.heightOfString(b.text || " ", { width: width - 12 });
          ensureSpace(Math.min(h, 200) + 12);
          const top = doc.y;
          if (top + h + 12 <= doc.page.height - doc.page.margins.bottom) {
            doc
              .save()
              .rect(x, top, width, h + 12)
              .fill("#f3f4f6")
              .restore();
          }
          doc.fillColor("#111111").text(b.text || " ", x + 6, top + 6, { width: width - 12 });
          doc.fillColor("black");
          doc.moveDown(0.8);
          break;
        }
        case "list":
          b.items.forEach((item, i) => {
            const marker = b.ordered ? `${b.start + i}.` : "•";
            ensureSpace(16);
            const y = doc.y;
            doc.font(fontName("regular")).fontSize(BODY).text(marker, x, y, { width: 18, lineBreak: false });
            doc.y = y;
            const [first, ...rest] = item;
            if (first && first.kind === "paragraph") {
              writeRuns(first.runs, BODY, x + 20, width - 20);
              doc.moveDown(0.2);
              render(rest, indent + 20);
            } else {
              doc.moveDown(1);
              render(item, indent + 20);
            }
          });
          doc.moveDown(0.3);
          break;
        case "table": {
          const cols = Math.max(b.header.length, ...b.rows.map((r) => r.length), 1);
          const colW = width / cols;
          const drawRow = (cells: Run[][], header: boolean) => {
            doc.font(fontName(header ? "bold" : "regular")).fontSize(9.5);
            const texts = Array.from({ length: cols }, (_, i) => runsText(cells[i] ?? []));
            const h = Math.max(...texts.map((t) => doc.heightOfString(t || " ", { width: colW - 8 }))) + 8;
            ensureSpace(h);
            const top = doc.y;
            if (header) doc.save().rect(x, top, width, h).fill("#e5e7eb").restore();
            texts.forEach((t, i) => {
              doc.fillColor("black").text(t, x + i * colW + 4, top + 4, { width: colW - 8 });
              doc
                .rect(x + i * colW, top, colW, h)
                .lineWidth(0.5)
                .stroke("#999999");
            });
            doc.y = top + h;
          };
          drawRow(b.header, true);
          for (const r of b.rows) drawRow(r, false);
          doc.x = left;
          doc.moveDown(0.8);
          break;
        }
        case "quote": {
          const top = doc.y;
          render(b.blocks, indent + 14);
          doc
            .save()
            .moveTo(x + 4, top)
            .lineTo(x + 4, doc.y - 4)
            .lineWidth(2)
            .stroke("#cccccc")
            .restore();
          break;
        }
        case "hr":
          ensureSpace(12);
          doc
            .moveTo(x, doc.y + 4)
            .lineTo(x + width, doc.y + 4)
            .lineWidth(0.5)
            .stroke("#999999");
          doc.moveDown(1);
          break;
      }
    }
  };

  render(parseMarkdown(md), 0);
  doc.end();
  await finished;
  return new Uint8Array(Buffer.concat(chunks));
}
