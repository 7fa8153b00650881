/**
 * Mermaid `mindmap` diagrams, which the offline renderer (beautiful-mermaid) does not draw, redrawn as the
 * same tree in flowchart syntax it does draw: every node keeps its text, shape and parent. Models asked for
 * a mind map (Chat2Workflow's DeepResearch_2, for one) write this syntax for the mermaid_converter tool.
 */

export class MindmapError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

interface MindmapNode {
  indent: number;
  label: string;
  shape: Shape;
  children: MindmapNode[];
}

type Shape = "square" | "rounded" | "circle" | "hexagon";

// Longest delimiters first: "((" must win over "(". Bang `))x((` and cloud `)x(` have no flowchart shape;
// they are drawn as a circle and a rounded box.
const SHAPES: readonly [open: string, close: string, shape: Shape][] = [
  ["((", "))", "circle"],
  ["))", "((", "circle"],
  ["{{", "}}", "hexagon"],
  ["[", "]", "square"],
  ["(", ")", "rounded"],
  [")", "(", "rounded"],
];

/** Does the (fence-stripped) code declare a mind map? Leading comments, directives and front matter aside. */
export function isMindmap(code: string): boolean {
  return firstStatement(code.split(/\r?\n/))?.text === "mindmap";
}

function firstStatement(lines: readonly string[]): { text: string; index: number } | undefined {
  let i = 0;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, k) => k > 0 && l.trim() === "---");
    i = end < 0 ? lines.length : end + 1;
  }
  for (; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t !== "" && !t.startsWith("%%")) return { text: t, index: i };
  }
  return undefined;
}

/** The label inside a node's delimiters: markdown strings ("`…`") and quotes unwrapped. */
function unwrap(text: string): string {
  const t = text.trim();
  const md = /^"`([\s\S]*)`"$/.exec(t);
  if (md) return md[1]!;
  const q = /^"([\s\S]*)"$/.exec(t);
  return q ? q[1]! : t;
}

function parseNode(text: string, line: number): { label: string; shape: Shape } {
  for (const [open, close, shape] of SHAPES) {
    const at = text.indexOf(open);
    // The id before the delimiter has no spaces or delimiters; the text must close where the line ends.
    if (at < 0 || !text.endsWith(close) || !/^[^\s()[\]{}]*$/.test(text.slice(0, at))) continue;
    const inner = text.slice(at + open.length, text.length - close.length);
    if (inner.trim() === "") throw new MindmapError(`node "${text}" has no text`, line);
    return { label: unwrap(inner), shape };
  }
  return { label: unwrap(text), shape: "rounded" };
}

/** The mind map's tree; comment, `::icon(…)` and `:::class` lines decorate nodes and are not drawn. */
export function parseMindmap(code: string): MindmapNode {
  const lines = code.split(/\r?\n/);
  const head = firstStatement(lines);
  if (head?.text !== "mindmap") throw new MindmapError('a mind map starts with "mindmap"', (head?.index ?? 0) + 1);
  const stack: MindmapNode[] = [];
  let root: MindmapNode | undefined;
  for (let i = head.index + 1; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\t/g, "    ");
    const text = raw.trim();
    if (text === "" || text.startsWith("%%") || text.startsWith("::icon(") || text.startsWith(":::")) continue;
    const indent = raw.length - raw.trimStart().length;
    const node: MindmapNode = { indent, ...parseNode(text.replace(/\s+:::.*$/, ""), i + 1), children: [] };
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(node);
    else if (root) throw new MindmapError(`"${text}" is a second root; a mind map has exactly one`, i + 1);
    else root = node;
    stack.push(node);
  }
  if (!root) throw new MindmapError("the mind map has no nodes", head.index + 1);
  return root;
}

const BOX: Record<Shape, [string, string]> = {
  square: ["[", "]"],
  rounded: ["(", ")"],
  circle: ["((", "))"],
  hexagon: ["{{", "}}"],
};

/** The mind map as a left-to-right flowchart of the same tree (labels quoted, `"` as an entity). */
export function mindmapToFlowchart(code: string): string {
  const out = ["graph LR"];
  let next = 0;
  const walk = (n: MindmapNode): string => {
    const id = `m${next++}`;
    const [open, close] = BOX[n.shape];
    out.push(`  ${id}${open}"${n.label.replace(/"/g, "&quot;")}"${close}`);
    for (const child of n.children) out.push(`  ${id} --> ${walk(child)}`);
    return id;
  };
  walk(parseMindmap(code));
  return out.join("\n");
}
