/**
 * Parity of `--fidelity upstream` with zjunlp/Chat2Workflow's evaluation rules, rule by rule (issue 37).
 * Each rule is restated here in words and in a few lines of independent code (a reading of upstream's
 * resolve_stage.py / pass_stage.py at 3e799a9, not its code), and Weft's upstream-fidelity implementation
 * must make the same decision on every synthetic output set, judge reply and value. Where Weft's own
 * rules (`--fidelity weft`) decide differently, the test counts the differences the docs cite.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultCaseTimeoutMs, parseFidelity, UPSTREAM_NODE_COMPLETION_PARAMS } from "../../src/eval/fidelity.js";
import { checkFileOutputs, nonFileOutputs, parseResolveJudge } from "../../src/eval/metrics/resolve.js";
import { parseUpstreamPassVerdict, upstreamPassUserMessage } from "../../src/eval/upstream/pass-judge.js";
import { loadUpstreamPrompt } from "../../src/eval/upstream/prompts.js";
import { pyRepr, pyStr, pyStrip } from "../../src/eval/upstream/pyrepr.js";
import {
  parseUpstreamVerdict,
  upstreamFileCheck,
  upstreamInputText,
  upstreamJudgedOutputs,
  upstreamOutputText,
  upstreamQueriesText,
  upstreamResolveUserMessage,
} from "../../src/eval/upstream/resolve-rules.js";

const file = (extension: string | undefined, extra: Record<string, unknown> = {}) => ({
  dify_model_identity: "__dify__file__",
  type: "document",
  filename: `out${extension ?? ".pdf"}`,
  ...(extension !== undefined ? { extension } : {}),
  ...extra,
});

describe("R3 judge reply parsing", () => {
  // Upstream's rule (resolve_stage.py:288, 293; pass_stage.py:526, 528): split the reply on the exact text
  // "<result>" and keep the last piece (the whole reply when the tag is absent), cut it at the first
  // "</result>"; the verdict is false iff that piece, lowercased, contains "false".
  const restated = (reply: string) => {
    const at = reply.lastIndexOf("<result>");
    const from = at < 0 ? reply : reply.slice(at + "<result>".length);
    const end = from.indexOf("</result>");
    const answer = end < 0 ? from : from.slice(0, end);
    return !answer.toLowerCase().includes("false");
  };
  const replies = [
    "<reason>fine</reason>\n<result>\ntrue\n</result>",
    "<reason>no</reason>\n<result>\nfalse\n</result>",
    "<reason>x</reason><result> False </result>",
    "<result>false</result> on reflection <result>true</result>",
    "<result>true</result> (not false)",
    "looks good",
    "this is false",
    "",
    "<RESULT>false</RESULT>",
    "<result>TRUE</result>",
    "<result>true",
    "<result>falsehood is absent</result>",
    "<reason>false alarm</reason><result>true</result>",
    "<result>true</result></result>false",
    "<result>\n[true or false]\n</result>",
    "</result>false<result>true",
  ];

  it("upstream fidelity decides every reply as the restated rule does; Weft's own rule differs on some", () => {
    let weftDiffers = 0;
    for (const r of replies) {
      expect(parseUpstreamVerdict(r).pass, JSON.stringify(r)).toBe(restated(r));
      expect(parseUpstreamPassVerdict(r).ok, JSON.stringify(r)).toBe(restated(r));
      if (parseResolveJudge(r).pass !== restated(r)) weftDiffers++;
    }
    // "looks good" and "" (no <result>: upstream passes, Weft fails), and two replies with "false" after
    // </result> (upstream stops reading there, Weft does not).
    expect(weftDiffers).toBe(4);
  });

  it("the reason is cut from <reason> as upstream cuts it (resolve_stage.py:304)", () => {
    expect(parseUpstreamVerdict("<reason>\nok\n</reason>\n<result>true</result>").reason).toBe("\nok\n");
    expect(parseUpstreamVerdict("no tags").reason).toBe("no tags");
  });
});

describe("R5 file check and what the judge sees", () => {
  // Upstream's rule (resolve_stage.py:196-227, 239-249): for each output named in check_resolve_stage.json,
  // in order: a name absent from the outputs fails; a mapping fails unless it has the key "extension"
  // whose value equals the required string exactly; a list fails if any element lacks "extension" or has
  // another one (so an empty list passes); any other value fails. If none failed, the judge is shown every
  // output whose name is not a required name, files included; with nothing to show, the case passes.
  type Decision = "file_fail" | "pass_no_judge" | { judged: string[] };
  const restated = (outputs: Record<string, unknown>, required: Record<string, string>): Decision => {
    const good = (f: unknown, ext: string) =>
      typeof f === "object" &&
      f !== null &&
      !Array.isArray(f) &&
      "extension" in f &&
      (f as { extension: unknown }).extension === ext;
    for (const [name, ext] of Object.entries(required)) {
      if (!(name in outputs)) return "file_fail";
      const v = outputs[name];
      if (Array.isArray(v)) {
        if (!v.every((f) => good(f, ext))) return "file_fail";
      } else if (typeof v === "object" && v !== null) {
        if (!good(v, ext)) return "file_fail";
      } else return "file_fail";
    }
    const shown = Object.keys(outputs).filter((k) => !(k in required));
    return shown.length === 0 ? "pass_no_judge" : { judged: shown };
  };
  const ours = (outputs: Record<string, unknown>, required: Record<string, string>): Decision => {
    if (upstreamFileCheck(outputs, required).length > 0) return "file_fail";
    const j = upstreamJudgedOutputs(outputs, required).map(([k]) => k);
    return j.length === 0 ? "pass_no_judge" : { judged: j };
  };
  const weft = (outputs: Record<string, unknown>, required: Record<string, string>): Decision => {
    if (!checkFileOutputs(outputs, required).ok) return "file_fail";
    const j = Object.keys(nonFileOutputs(outputs));
    return j.length === 0 ? "pass_no_judge" : { judged: j };
  };
  const sets: Array<[Record<string, unknown>, Record<string, string>]> = [
    [{ pdf: file(".pdf") }, { pdf: ".pdf" }],
    [{ pdf: file(".PDF") }, { pdf: ".pdf" }],
    [{ pdf: file("pdf") }, { pdf: ".pdf" }],
    [{ pdf: file(undefined) }, { pdf: ".pdf" }],
    [{ pdf: [] }, { pdf: ".pdf" }],
    [{ pdf: [file(".pdf"), file(".pdf")] }, { pdf: ".pdf" }],
    [{ pdf: [file(".pdf"), file(".docx")] }, { pdf: ".pdf" }],
    [{ pdf: "a text" }, { pdf: ".pdf" }],
    [{ pdf: null }, { pdf: ".pdf" }],
    [{ other: file(".pdf") }, { pdf: ".pdf" }],
    [{ pdf: file(".pdf"), summary: "text" }, { pdf: ".pdf" }],
    [{ pdf: file(".pdf"), picture: file(".png") }, { pdf: ".pdf" }],
    [{ summary: "text", audio: file(".wav") }, {}],
    [
      { a: file(".pdf"), b: file(".md") },
      { a: ".pdf", b: ".md" },
    ],
    [
      { a: file(".pdf"), b: [file(".md"), "x"] },
      { a: ".pdf", b: ".md" },
    ],
  ];

  it("upstream fidelity takes the restated rule's path on all 15 sets; Weft's rule differs on 6", () => {
    let differs = 0;
    for (const [outputs, required] of sets) {
      expect(ours(outputs, required), JSON.stringify(outputs)).toEqual(restated(outputs, required));
      if (JSON.stringify(weft(outputs, required)) !== JSON.stringify(restated(outputs, required))) differs++;
    }
    // ".PDF", "pdf", no extension (Weft falls back to the filename), the empty list, and two sets where
    // Weft hides unrequired files from the judge.
    expect(differs).toBe(6);
  });
});

describe("R6 values as Python prints them", () => {
  // Upstream's rule (resolve_stage.py:251, 261): f"{key}: {value}", i.e. str(value): a string as itself,
  // anything else as its repr — True/False/None, single-quoted strings, ", " and ": " separators.
  const table: Array<[unknown, string]> = [
    [{ a: true, b: null, c: [1, 2.5, "x"] }, "{'a': True, 'b': None, 'c': [1, 2.5, 'x']}"],
    ["it's", `"it's"`],
    ['say "hi"', `'say "hi"'`],
    ["both ' and \"", `'both \\' and "'`],
    ["tab\tnew\nline\\", "'tab\\tnew\\nline\\\\'"],
    ["é中\u0000\u007f\u0085\u00a0\u200b\u2028", "'é中\\x00\\x7f\\x85\\xa0\\u200b\\u2028'"],
    ["😀", "'😀'"],
    [1e-7, "1e-07"],
    [0.0001, "0.0001"],
    [123456789012345.6, "123456789012345.6"],
    [-0.5, "-0.5"],
    [1e22, "1e+22"],
    [0.1, "0.1"],
    [[], "[]"],
    [{}, "{}"],
    [{ x: { y: [false, null] } }, "{'x': {'y': [False, None]}}"],
    [100, "100"],
  ];

  it("matches CPython's repr on a fixed table", () => {
    for (const [v, want] of table) expect(pyRepr(v)).toBe(want);
    expect(pyStr("plain text")).toBe("plain text");
    expect(pyStr(true)).toBe("True");
    expect(pyStr(null)).toBe("None");
    expect(() => pyRepr({ f: () => 1 })).toThrow(expect.objectContaining({ code: "eval.unprintable_value" }));
  });

  it.skipIf(!hasPython())("matches the python3 on this machine on generated values", () => {
    const values: unknown[] = [];
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const chars = [
      "a",
      "'",
      '"',
      "\\",
      "\n",
      "\t",
      "\u0001",
      "é",
      "\u00ad",
      "中",
      "\u3000",
      " ",
      "😀",
      "\u2029",
      "\u007f",
    ];
    const str = () =>
      Array.from({ length: Math.floor(rnd() * 8) }, () => chars[Math.floor(rnd() * chars.length)]).join("");
    const num = () => (rnd() < 0.5 ? Math.floor(rnd() * 1e6) - 5e5 : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20));
    const val = (d: number): unknown => {
      const k = Math.floor(rnd() * (d > 2 ? 4 : 6));
      if (k === 0) return str();
      if (k === 1) return num();
      if (k === 2) return [true, false, null][Math.floor(rnd() * 3)];
      if (k === 3) return str();
      if (k === 4) return Array.from({ length: Math.floor(rnd() * 3) }, () => val(d + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 3) }, () => [str(), val(d + 1)]));
    };
    for (let i = 0; i < 300; i++) values.push(val(0));
    // Integral floats are left out: JSON gives Python a float 3.0 that JavaScript holds as the number 3.
    const json = JSON.stringify(values, (_k, v) => (typeof v === "number" && !Number.isInteger(v) ? v : v));
    const script = "import json,sys\nfor v in json.loads(sys.stdin.read()): print(json.dumps(repr(v)))";
    const out = execFileSync("python3", ["-c", script], { input: json, encoding: "utf8" }).trim().split("\n");
    expect(out).toHaveLength(values.length);
    values.forEach((v, i) => {
      expect(pyRepr(v), JSON.stringify(v)).toBe(JSON.parse(out[i]!));
    });
  });

  it("str.strip as Python's: whitespace by default, the given characters otherwise", () => {
    expect(pyStrip(" \u3000\x1c text \n")).toBe("text");
    expect(pyStrip("\ufefftext")).toBe("\ufefftext"); // U+FEFF is not whitespace to Python
    expect(pyStrip("```json\n{}\n```", "\n`json")).toBe("{}");
  });
});

function hasPython(): boolean {
  try {
    execFileSync("python3", ["-c", "pass"]);
    return true;
  } catch {
    return false;
  }
}

describe("R2 resolve judge user message", () => {
  // Upstream's rule (resolve_stage.py:41-59, 255-278): a triple-quoted template whose lines are indented by
  // four spaces; queries as "query<i>: <text>" lines, non-file inputs as "name: value" lines (each ending
  // in a newline), outputs as "name: value" lines joined by newlines, the ground truth or "".
  const TEMPLATE = `
    <queries>
    {queries}
    </queries>

    <input>
    {input_text}
    </input>

    <output>
    {output_text}
    </output>
    
    <reference_answer>
    {ground_truth}
    </reference_answer>
    `;
  const fill = (vars: Record<string, string>) => TEMPLATE.replace(/\{(\w+)\}/g, (_m, k: string) => vars[k]!);

  it("is the restated template, filled the way str.format fills it", () => {
    const inputs = { topic: "cats {not a field}", n: 3, flag: true, doc: file(".pdf"), docs: [file(".pdf")] };
    const judged = upstreamJudgedOutputs(
      { pdf: file(".pdf"), summary: "Cats sleep.", meta: { ok: true } },
      { pdf: ".pdf" },
    );
    const msg = upstreamResolveUserMessage({
      queries: upstreamQueriesText(["Make a summary", "Also output a PDF"]),
      inputText: upstreamInputText(inputs),
      outputText: upstreamOutputText(judged),
      groundTruth: "",
    });
    expect(msg).toBe(
      fill({
        queries: "query1: Make a summary\nquery2: Also output a PDF\n",
        input_text: "topic: cats {not a field}\nn: 3\nflag: True\n",
        output_text: "summary: Cats sleep.\nmeta: {'ok': True}",
        ground_truth: "",
      }),
    );
  });
});

describe("R11 pass judge user message", () => {
  // Upstream's rule (pass_stage.py:254-263, 427-434, 519, 523): each section stripped, node_selection with
  // its end newlines stripped and every inner newline turned into ", ", the workflow also stripped of
  // "\n", "`", "j", "s", "o", "n" at both ends, gt_nodes printed as a Python list, in a four-space template.
  const TEMPLATE = `
    node_selection: {node_selection}
    design_principle: {design_principle}
    workflow: {workflow}
    gt_nodes: {gt_nodes}
    `;
  it("is the restated template", () => {
    const msg = upstreamPassUserMessage({
      nodeSelection: "\nStart\nLLM\n\nEnd\n",
      designPrinciple: "  keep it simple \n",
      workflow: '```json\n{"nodes_info": []}\n```',
      gtNodes: ["llm", "template-transform"],
    });
    expect(msg).toBe(
      TEMPLATE.replace("{node_selection}", "Start, LLM, , End")
        .replace("{design_principle}", "keep it simple")
        .replace("{workflow}", '{"nodes_info": []}')
        .replace("{gt_nodes}", "['llm', 'template-transform']"),
    );
  });
});

describe("R2/R11 upstream prompt files, R7 and R10 settings", () => {
  it("reads the system prompt from the upstream checkout, stripped, and says whether it is upstream's file", () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-c2w-prompts-"));
    expect(() => loadUpstreamPrompt(dir, "resolve")).toThrow(
      expect.objectContaining({ code: "eval.upstream_prompt_missing" }),
    );
    mkdirSync(join(dir, "prompts"));
    writeFileSync(join(dir, "prompts", "evaluation_resolve_system.txt"), "\n  You judge.\n\n");
    const p = loadUpstreamPrompt(dir, "resolve");
    expect(p.system).toBe("You judge.");
    expect(p.matchesUpstream).toBe(false);
  });

  it("upstream's converter params and no case timeout; Weft's 300 s", () => {
    expect(UPSTREAM_NODE_COMPLETION_PARAMS).toEqual({ temperature: 0.7, max_tokens: 32768 });
    expect(defaultCaseTimeoutMs("upstream")).toBeUndefined();
    expect(defaultCaseTimeoutMs("weft")).toBe(300_000);
    expect(() => parseFidelity("exact")).toThrow(expect.objectContaining({ code: "eval.bad_fidelity" }));
  });
});
