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

/** Parse model JSON: fences stripped, then strict JSON, then jsonrepair (commas, comments, quotes, truncation). */
export function parseModelJson(text: string): JsonRepairResult {
  const repairs: RepairRecord[] = [];
  const fence = stripFences(text);
  if (fence.repaired) repairs.push({ kind: "fences", detail: "removed a Markdown code fence around the JSON" });
  try {
    return { value: JSON.parse(fence.text), repairs };
  } catch (first) {
    try {
      const fixed = jsonrepair(fence.text);
      const value = JSON.parse(fixed);
      repairs.push({ kind: "json", detail: `repaired JSON: ${describeJsonFix(fence.text).join(", ")}` });
      return { value, repairs };
    } catch {
      return { repairs, error: `not valid JSON: ${(first as Error).message}` };
    }
  }
}
