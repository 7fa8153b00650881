import {
  BookOpen,
  Bot,
  Box,
  Braces,
  CircleStop,
  Code,
  FileText,
  Flag,
  GitBranch,
  Globe,
  Hammer,
  ListFilter,
  type LucideIcon,
  Merge,
  MessageSquare,
  PenLine,
  Play,
  RefreshCw,
  Repeat,
  ScanText,
  Sparkles,
  Tags,
  Wrench,
} from "lucide-react";

/** How each node type looks on the canvas and in the inspector: one icon and one colour per type. */
const ICONS: Record<string, LucideIcon> = {
  start: Play,
  end: Flag,
  answer: MessageSquare,
  llm: Sparkles,
  "if-else": GitBranch,
  "question-classifier": Tags,
  "parameter-extractor": ScanText,
  code: Code,
  "template-transform": Braces,
  "http-request": Globe,
  tool: Wrench,
  "tool-call": Hammer,
  "knowledge-retrieval": BookOpen,
  iteration: Repeat,
  "iteration-start": Play,
  loop: RefreshCw,
  "loop-start": Play,
  "loop-end": CircleStop,
  "variable-aggregator": Merge,
  assigner: PenLine,
  "list-operator": ListFilter,
  "document-extractor": FileText,
  agent: Bot,
};

const COLORS: Record<string, string> = {
  io: "#2f6bff",
  llm: "#7a5af8",
  logic: "#f79009",
  transform: "#12b76a",
  tool: "#ee46bc",
  container: "#0ba5ec",
  knowledge: "#15b79e",
};

export const categoryColor = (category: string) => COLORS[category] ?? "#667085";

export function TypeIcon({ type, category, size = 16 }: { type: string; category: string; size?: number }) {
  const Icon = ICONS[type] ?? Box;
  const pad = Math.round(size * 0.25);
  return (
    <span
      className="type-icon"
      style={{ background: categoryColor(category), padding: pad, borderRadius: size * 0.35 }}
      aria-hidden
    >
      <Icon size={size} color="#fff" strokeWidth={2.2} />
    </span>
  );
}
