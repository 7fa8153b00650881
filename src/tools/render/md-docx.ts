import {
  AlignmentType,
  BorderStyle,
  Document,
  ExternalHyperlink,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import { type Block, parseMarkdown, type Run } from "./markdown.js";

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
] as const;

const MONO = "Courier New";

function textRuns(runs: Run[]): Array<TextRun | ExternalHyperlink> {
  return runs.map((r) => {
    const run = new TextRun({
      text: r.text,
      bold: r.bold,
      italics: r.italic,
      strike: r.strike,
      font: r.code ? MONO : undefined,
      style: r.link ? "Hyperlink" : undefined,
      break: r.breakBefore ? 1 : undefined,
    });
    return r.link ? new ExternalHyperlink({ link: r.link, children: [run] }) : run;
  });
}

type Child = Paragraph | Table;

function render(blocks: Block[], ctx: { listLevel: number; quote: boolean; ordinal: { n: number } }): Child[] {
  const out: Child[] = [];
  const indent = ctx.quote ? { left: 720 } : undefined;
  for (const b of blocks) {
    switch (b.kind) {
      case "heading":
        out.push(new Paragraph({ heading: HEADINGS[Math.min(b.level, 6) - 1], children: textRuns(b.runs) }));
        break;
      case "paragraph":
        out.push(new Paragraph({ children: textRuns(b.runs), indent }));
        break;
      case "code": {
        const lines = b.text.split("\n");
        out.push(
          new Paragraph({
            shading: { type: ShadingType.CLEAR, fill: "F3F4F6", color: "auto" },
            children: lines.map(
              (line, i) => new TextRun({ text: line, font: MONO, size: 19, break: i > 0 ? 1 : undefined }),
            ),
          }),
        );
        break;
      }
      case "list":
        for (const item of b.items) {
          const [first, ...rest] = item;
          const level = Math.min(ctx.listLevel, 8);
          const runs = first && (first.kind === "paragraph" || first.kind === "heading") ? first.runs : [];
          out.push(
            new Paragraph({
              children: textRuns(runs),
              ...(b.ordered
                ? { numbering: { reference: "ordered", level, instance: ctx.ordinal.n } }
                : { bullet: { level } }),
            }),
          );
          const remaining = first && (first.kind === "paragraph" || first.kind === "heading") ? rest : item;
          out.push(...render(remaining, { ...ctx, listLevel: ctx.listLevel + 1 }));
        }
        if (b.ordered) ctx.ordinal.n++;
        break;
      case "table": {
        const width = Math.max(b.header.length, ...b.rows.map((r) => r.length));
        const cell = (runs: Run[] | undefined, header: boolean) =>
          new TableCell({
            children: [
              new Paragraph({ children: textRuns((runs ?? []).map((r) => (header ? { ...r, bold: true } : r))) }),
            ],
            shading: header ? { type: ShadingType.CLEAR, fill: "E5E7EB", color: "auto" } : undefined,
          });
        const row = (cells: Run[][], header: boolean) =>
          new TableRow({
            tableHeader: header,
            children: Array.from({ length: width }, (_, i) => cell(cells[i], header)),
          });
        out.push(
          new Table({
            width: { size: 100, type: WidthType.PERCENTAGE },
            rows: [row(b.header, true), ...b.rows.map((r) => row(r, false))],
          }),
          new Paragraph({}),
        );
        break;
      }
      case "quote":
        out.push(...render(b.blocks, { ...ctx, quote: true }));
        break;
      case "hr":
        out.push(
          new Paragraph({
            border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: "999999", space: 1 } },
            children: [],
          }),
        );
        break;
    }
  }
  return out;
}

/** Markdown → DOCX bytes: headings, inline styles, links, nested lists, code, tables, quotes, rules. */
export async function markdownToDocx(md: string, title?: string): Promise<Uint8Array> {
  const ordinal = { n: 0 };
  const children = render(parseMarkdown(md), { listLevel: 0, quote: false, ordinal });
  const doc = new Document({
    title,
    creator: "Weft",
    numbering: {
      config: [
        {
          reference: "ordered",
          levels: Array.from({ length: 9 }, (_, level) => ({
            level,
            format: LevelFormat.DECIMAL,
            text: `%${level + 1}.`,
            alignment: AlignmentType.START,
            style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
          })),
        },
      ],
    },
    sections: [{ children: children.length > 0 ? children : [new Paragraph({})] }],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}
