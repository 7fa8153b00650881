/**
 * Chat2Workflow's resolve-stage rules as upstream's resolve_stage.py (zjunlp/Chat2Workflow at
 * 3e799a9) applies them, for `--fidelity upstream`. Each function names the lines it mirrors; where
 * Weft's own choice differs (src/eval/metrics/resolve.ts), docs/chat2workflow-results.md says why.
 */
import type { FileCheckFailure } from "../metrics/resolve.js";
import { pyStr } from "./pyrepr.js";

type Outputs = Record<string, unknown>;

const isDict = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * R5, resolve_stage.py:196-227. For each output named in check_resolve_stage.json: absent → fail; a
 * dict passes only if its `extension` equals the required one exactly (".PDF" ≠ ".pdf", no filename
 * fallback); a list passes if every element does, so an empty list passes; anything else fails. A list
 * element that is not a dict crashes upstream (`.get` on a str); here it fails, named `not_a_file`.
 */
export function upstreamFileCheck(outputs: Outputs, required: Record<string, string>): FileCheckFailure[] {
  const failures: FileCheckFailure[] = [];
  for (const [name, expected] of Object.entries(required)) {
    // resolve_stage.py:201 — `key not in output_dict`
    if (!Object.hasOwn(outputs, name)) {
      failures.push({ output: name, reason: "missing", expected });
      continue;
    }
    const v = outputs[name];
    // resolve_stage.py:208-209 — `.get('extension', -1) == -1 or ... != value`
    const extOk = (f: Record<string, unknown>) => Object.hasOwn(f, "extension") && f.extension === expected;
    if (isDict(v)) {
      if (!extOk(v))
        failures.push({ output: name, reason: "wrong_extension", expected, actual: [String(v.extension)] });
    } else if (Array.isArray(v)) {
      // resolve_stage.py:216-222 — the loop over an empty list finds nothing wrong
      const bad = v.filter((f) => !isDict(f) || !extOk(f));
      if (bad.some((f) => !isDict(f))) failures.push({ output: name, reason: "not_a_file", expected });
      else if (bad.length > 0)
        failures.push({
          output: name,
          reason: "wrong_extension",
          expected,
          actual: bad.map((f) => String((f as Record<string, unknown>).extension)),
        });
    } else {
      // resolve_stage.py:223-227
      failures.push({ output: name, reason: "not_a_file", expected });
    }
  }
  return failures;
}

/**
 * R5, resolve_stage.py:239-243: the judge sees every output except those named in
 * check_resolve_stage.json, file or not (an unrequired file output is shown as its dict).
 */
export function upstreamJudgedOutputs(
  outputs: Outputs,
  required: Record<string, string> | undefined,
): Array<[string, unknown]> {
  return Object.entries(outputs).filter(([k]) => !(required && Object.hasOwn(required, k)));
}

/** R6, resolve_stage.py:251: `"\n".join(f"{k}: {v}")`, so values print as Python str(). */
export function upstreamOutputText(judged: ReadonlyArray<[string, unknown]>): string {
  return judged.map(([k, v]) => `${k}: ${pyStr(v, k)}`).join("\n");
}

/** resolve_stage.py:255-261: non-dict, non-list inputs as `key: value\n` (every line ends in a newline). */
export function upstreamInputText(inputs: Outputs): string {
  let text = "";
  for (const [k, v] of Object.entries(inputs)) {
    if (isDict(v) || Array.isArray(v)) continue;
    text += `${k}: ${pyStr(v, k)}\n`;
  }
  return text;
}

/** resolve_stage.py:273-274: `query<i>: <text>\n` for rounds 1 … current. */
export function upstreamQueriesText(queries: readonly string[]): string {
  return queries.map((q, i) => `query${i + 1}: ${q}\n`).join("");
}

/**
 * R2, resolve_stage.py:41-59: the user message, a triple-quoted template whose lines are indented by
 * four spaces (the blank line before <reference_answer> holds those four spaces, the others none).
 */
export function upstreamResolveUserMessage(p: {
  queries: string;
  inputText: string;
  outputText: string;
  groundTruth: string;
}): string {
  return [
    "",
    "    <queries>",
    `    ${p.queries}`,
    "    </queries>",
    "",
    "    <input>",
    `    ${p.inputText}`,
    "    </input>",
    "",
    "    <output>",
    `    ${p.outputText}`,
    "    </output>",
    "    ",
    "    <reference_answer>",
    `    ${p.groundTruth}`,
    "    </reference_answer>",
    "    ",
  ].join("\n");
}

export interface UpstreamVerdict {
  pass: boolean;
  reason: string;
}

/**
 * R3, resolve_stage.py:288 and 293 (and pass_stage.py:526 and 528, the same rule): the answer is the
 * text after the last `<result>` (the whole reply when there is none) up to the first `</result>`; the
 * case fails iff that answer, lowercased, contains "false". Tags match case-sensitively (Python
 * str.split). The reason, resolve_stage.py:304, is cut the same way from `<reason>`.
 */
export function parseUpstreamVerdict(reply: string): UpstreamVerdict {
  const answer = reply.split("<result>").at(-1)!.split("</result>")[0]!;
  const reason = reply.split("<reason>").at(-1)!.split("</reason>")[0]!;
  return { pass: !answer.toLowerCase().includes("false"), reason };
}
