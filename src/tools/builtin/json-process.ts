import { type BuiltinTool, paramError, str, type ToolContext } from "./types.js";

/** Python's `json.dumps` layout (`", "` and `": "` separators), optionally with `ensure_ascii`. */
export function pyJsonDumps(v: unknown, ensureAscii: boolean): string {
  const walk = (x: unknown): string => {
    if (x === null || x === undefined) return "null";
    if (Array.isArray(x)) return `[${x.map(walk).join(", ")}]`;
    if (typeof x === "object") {
      return `{${Object.entries(x as Record<string, unknown>)
        .map(([k, val]) => `${walk(k)}: ${walk(val)}`)
        .join(", ")}}`;
    }
    if (typeof x === "number" && Number.isInteger(x)) return String(x);
    const s = JSON.stringify(x);
    return ensureAscii
      ? s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      : s;
  };
  return walk(v);
}

/** Python's `str()` of a JSON scalar: booleans as True/False, null as None. */
function pyStr(v: unknown): string {
  if (v === true) return "True";
  if (v === false) return "False";
  if (v === null || v === undefined) return "None";
  return String(v);
}

type Step = { key: string } | { index: number } | { wildcard: true };

/** The JSONPath subset LLM-built workflows use: `$`, `.key`, `['key']`, `[n]`, `[*]`, `.*`. */
function parsePath(ctx: ToolContext, path: string): Step[] {
  let p = path.trim();
  if (p.startsWith("$")) p = p.slice(1);
  const steps: Step[] = [];
  const re = /\.?([A-Za-z_\u00a0-\uffff][\w\u00a0-\uffff-]*)|\.\*|\[(\d+)\]|\[\*\]|\[['"]([^'"]*)['"]\]/gy;
  let at = 0;
  while (at < p.length) {
    re.lastIndex = at;
    const m = re.exec(p);
    if (!m) throw paramError(ctx, "json_filter", `is not a JSONPath this tool understands: "${path}"`);
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ key: m[3] });
    else steps.push({ wildcard: true });
    at = re.lastIndex;
  }
  return steps;
}

function find(values: unknown[], steps: Step[]): unknown[] {
  let cur = values;
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ("wildcard" in s) {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === "object") next.push(...Object.values(v));
      } else if ("index" in s) {
        if (Array.isArray(v) && s.index < v.length) next.push(v[s.index]);
      } else if (v && typeof v === "object" && !Array.isArray(v) && s.key in v) {
        next.push((v as Record<string, unknown>)[s.key]);
      }
    }
    cur = next;
  }
  return cur;
}

function truthy(v: unknown, fallback: boolean): boolean {
  if (v === undefined || v === null || v === "") return fallback;
  return v === true || v === 1 || v === "1" || String(v).toLowerCase() === "true";
}

/** Dify's built-in `json_process` provider (the `parse` tool). */
export const jsonProcessTools: BuiltinTool[] = [
  {
    provider: "json_process",
    name: "parse",
    label: "JSON Parse",
    description: "Extract a value from JSON text with a JSONPath filter.",
    parameters: [
      { name: "content", type: "string", required: true, form: "llm", description: "JSON text" },
      {
        name: "json_filter",
        type: "string",
        required: false,
        form: "llm",
        description: "JSONPath, e.g. $.items[0].name",
      },
      {
        name: "ensure_ascii",
        type: "boolean",
        required: false,
        form: "form",
        description: "escape non-ASCII",
        default: true,
      },
    ],
    async run(ctx) {
      const content = str(ctx, "content");
      let data: unknown;
      try {
        data = JSON.parse(content);
      } catch (e) {
        throw paramError(ctx, "content", `is not valid JSON: ${(e as Error).message}`);
      }
      const ascii = truthy(ctx.args.ensure_ascii, true);
      const filter = str(ctx, "json_filter").trim();
      const found = filter ? find([data], parsePath(ctx, filter)) : [data];
      if (found.length === 0) return { text: "" };
      const v = found.length === 1 ? found[0] : found;
      return { text: v !== null && typeof v === "object" ? pyJsonDumps(v, ascii) : pyStr(v) };
    },
  },
];
