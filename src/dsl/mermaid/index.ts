import type { Workflow, WorkflowEdge, WorkflowNode } from "../../ir/workflow.js";

/**
 * A Mermaid flowchart of a workflow, for docs, chat answers and review. Node ids are replaced by `n<index>`
 * because Dify ids (timestamps, uuids with dashes) are not all valid Mermaid ids; labels carry title and type.
 * Containers (iteration, loop) with children become subgraphs; branch ports become edge labels.
 */

const CONTAINER_TYPES = new Set(["iteration", "loop"]);

/** Characters that end or confuse a quoted Mermaid label, written as Mermaid entity codes. */
const ENTITIES: Record<string, string> = {
  "#": "#35;",
  '"': "#quot;",
  "<": "#lt;",
  ">": "#gt;",
  "[": "#91;",
  "]": "#93;",
  "{": "#123;",
  "}": "#125;",
  "(": "#40;",
  ")": "#41;",
  "|": "#124;",
};

export function escapeMermaidLabel(text: string): string {
  return text
    .replace(/[#"<>[\]{}()|]/g, (c) => ENTITIES[c] ?? c)
    .replace(/\s+/g, " ")
    .trim();
}

function shape(node: WorkflowNode, label: string): string {
  const q = `"${label}"`;
  switch (node.type) {
    case "start":
    case "end":
    case "answer":
      return `([${q}])`;
    case "if-else":
    case "question-classifier":
      return `{${q}}`;
    case "iteration-start":
    case "loop-start":
      return `((${q}))`;
    default:
      return `[${q}]`;
  }
}

function nodeLabel(node: WorkflowNode): string {
  if (node.title.trim() === "") return escapeMermaidLabel(node.type);
  return `${escapeMermaidLabel(node.title)} · ${escapeMermaidLabel(node.type)}`;
}

/** The human name of a branch port: if-else case ids become "case N" / "else", classifier ids the class name. */
export function portLabel(source: WorkflowNode | undefined, port: string): string | undefined {
  if (port === "source") return undefined;
  if (port === "fail-branch") return "fail-branch";
  if (source?.type === "if-else") {
    if (port === "false") return "else";
    const cases = Array.isArray(source.config.cases) ? source.config.cases : [];
    const i = cases.findIndex(
      (c) => typeof c === "object" && c !== null && (c as { case_id?: unknown }).case_id === port,
    );
    if (i >= 0) return `case ${i + 1}`;
    if (port === "true" && cases.length === 0) return "case 1";
  }
  if (source?.type === "question-classifier") {
    const classes = Array.isArray(source.config.classes) ? source.config.classes : [];
    const i = classes.findIndex((c) => typeof c === "object" && c !== null && (c as { id?: unknown }).id === port);
    const cls = classes[i] as { name?: unknown } | undefined;
    if (cls) return typeof cls.name === "string" && cls.name.trim() !== "" ? cls.name : `class ${i + 1}`;
  }
  return port;
}

export interface MermaidOptions {
  /** Flow direction; Dify's canvas runs left to right. */
  direction?: "LR" | "TB";
}

export function toMermaid(wf: Workflow, opts: MermaidOptions = {}): string {
  const direction = opts.direction ?? "LR";
  const index = new Map<string, number>();
  wf.nodes.forEach((n, i) => {
    if (!index.has(n.id)) index.set(n.id, i);
  });
  const mid = (i: number): string => `n${i}`;
  const children = new Map<number, number[]>();
  const topLevel: number[] = [];
  wf.nodes.forEach((n, i) => {
    const p = n.parentId === undefined ? undefined : index.get(n.parentId);
    if (p === undefined || p === i) topLevel.push(i);
    else children.set(p, [...(children.get(p) ?? []), i]);
  });

  const lines = [`flowchart ${direction}`];
  const drawn = new Set<number>();
  const draw = (i: number, indent: string): void => {
    if (drawn.has(i)) return; // a parent cycle would recurse forever
    drawn.add(i);
    const n = wf.nodes[i] as WorkflowNode;
    const kids = children.get(i) ?? [];
    if (CONTAINER_TYPES.has(n.type) && kids.length > 0) {
      lines.push(`${indent}subgraph ${mid(i)}["${nodeLabel(n)}"]`);
      lines.push(`${indent}  direction ${direction}`);
      for (const k of kids) draw(k, `${indent}  `);
      lines.push(`${indent}end`);
    } else {
      lines.push(`${indent}${mid(i)}${shape(n, nodeLabel(n))}`);
      // Children of a non-container still need drawing.
      for (const k of kids) draw(k, indent);
    }
  };
  for (const i of topLevel) draw(i, "  ");
  // Nodes only reachable through a parent cycle.
  for (let i = 0; i < wf.nodes.length; i++) draw(i, "  ");

  for (const e of wf.edges) lines.push(edgeLine(e, wf, index, mid));
  return `${lines.join("\n")}\n`;
}

function edgeLine(e: WorkflowEdge, wf: Workflow, index: Map<string, number>, mid: (i: number) => string): string {
  const s = index.get(e.source);
  const t = index.get(e.target);
  if (s === undefined || t === undefined) {
    return `  %% edge ${escapeMermaidLabel(e.source)} -> ${escapeMermaidLabel(e.target)} names a missing node`;
  }
  const label = portLabel(wf.nodes[s], e.sourcePort);
  const arrow = e.sourcePort === "fail-branch" ? "-.->" : "-->";
  return label === undefined
    ? `  ${mid(s)} ${arrow} ${mid(t)}`
    : `  ${mid(s)} ${arrow}|"${escapeMermaidLabel(label)}"| ${mid(t)}`;
}
