import { jsonrepair } from "jsonrepair";
import { stripFences } from "./sections.js";
import type { RepairRecord } from "./types.js";

export interface JsonRepairResult {
  value?: unknown;
  repairs: RepairRecord[];
  error?: string;
}

function describeJsonFix(before: string): string[] {
  const what: string[] = [];
  if (/,\s*[}\]]/.test(before)) what.push("trailing commas");
  if (/(^|[^:"'])\/\/|\/\*/.test(before)) what.push("comments");
  if (/'[^'"\n]*'\s*:/.test(before) || /:\s*'/.test(before)) what.push("single quotes");
  let depth = 0;
  let inStr = false;
  for (let i = 0; i < before.length; i++) {
    const ch = before[i];
    if (inStr) {
      if (ch === "\\") i++;
      else if (ch === '"') inStr = false;
    } else if (ch === '"') inStr = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
  }
  if (depth > 0 || inStr) what.push("truncated output (closed open brackets)");
  return what.length ? what : ["syntax"];
}

/**
 * Replace each closing bracket that does not match the innermost open one (`]` for `{`, `}` for `[`)
 * with the one that does, and close an object that a comma shows was left open (`…}, {` where the
 * object needs a key); strings are skipped. Models mistype the closer far more often than they drop
 * one, and where one was dropped the next mismatch closes the outer bracket, so the shape comes out right.
 */
export function balanceBrackets(text: string): { text: string; changed: number } {
  const out: string[] = [];
  const stack: string[] = [];
  let inStr = false;
  let changed = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inStr) {
      out.push(ch);
      if (ch === "\\" && i + 1 < text.length) out.push(text[++i]!);
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === "," && stack.at(-1) === "}" && /^\s*[[{]/.test(text.slice(i + 1, i + 200))) {
      // An object member must start with a key; `}, {` inside an object means its `}` was dropped.
      stack.pop();
      out.push("}");
      changed++;
    } else if (ch === "{" || ch === "[") stack.push(ch === "{" ? "}" : "]");
    else if (ch === "}" || ch === "]" || (ch === ")" && stack.length > 0)) {
      // `)` is never JSON outside a string: a mistyped closer.
      const want = stack.pop();
      if (want && want !== ch) {
        changed++;
        out.push(want);
        continue;
      }
    }
    out.push(ch);
  }
  return { text: out.join(""), changed };
}

const isWorkflowLike = (v: unknown) =>
  !!v && typeof v === "object" && Array.isArray((v as { nodes_info?: unknown }).nodes_info);

/** Parse model JSON: fences stripped, then strict JSON, then jsonrepair (commas, comments, quotes, truncation). */
export function parseModelJson(text: string): JsonRepairResult {
  const repairs: RepairRecord[] = [];
  const fence = stripFences(text);
  if (fence.repaired) repairs.push({ kind: "fences", detail: "removed a Markdown code fence around the JSON" });
  try {
    return { value: JSON.parse(fence.text), repairs };
  } catch (first) {
    // A wrong closing bracket (`[[…]] }`) is a clear sign of what was meant; jsonrepair alone either
    // gives up on it or guesses another shape, so the brackets are balanced first.
    const balanced = balanceBrackets(fence.text);
    const attempts: Array<[string, string]> = [
      ...(balanced.changed
        ? ([[balanced.text, `${balanced.changed} mismatched closing bracket(s)`]] as Array<[string, string]>)
        : []),
      [fence.text, describeJsonFix(fence.text).join(", ")],
    ];
    const parsed: Array<{ value: unknown; what: string }> = [];
    for (const [candidate, what] of attempts) {
      try {
        parsed.push({ value: JSON.parse(jsonrepair(candidate)), what });
      } catch {
        // try the next candidate
      }
    }
    // Balancing can misjudge a dropped bracket; prefer a reading that is still a workflow object.
    const pick = parsed.find((p) => isWorkflowLike(p.value)) ?? parsed[0];
    if (pick) {
      repairs.push({ kind: "json", detail: `repaired JSON: ${pick.what}` });
      return { value: pick.value, repairs };
    }
    return { repairs, error: `not valid JSON: ${(first as Error).message}` };
  }
}
