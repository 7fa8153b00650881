/**
 * Hostile model answers for fuzzing the path model output takes (read → repair → convert → analyse →
 * export). Shared by the seeded CI test and bench/fuzz.ts. Answers are built from prototype-named keys
 * and values, wrong shapes in every param, odd ports, deep nesting and truncation, because that is
 * what broke before: lookups through Object.prototype, raw ZodErrors, String()/Number() on objects.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { readAnswer } from "../../src/authoring/answer.js";
import { projectWorkflow } from "../../src/dsl/compact/project.js";
import { ALL_COMPACT_TYPES } from "../../src/dsl/compact/vocabulary.js";
import { exportDify } from "../../src/dsl/dify/export.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { corpusPath } from "./corpus.js";

const PROTO_NAMES = [
  "constructor",
  "__proto__",
  "valueOf",
  "toString",
  "hasOwnProperty",
  "isPrototypeOf",
  "toLocaleString",
  "toJSON",
  "prototype",
  "__defineGetter__",
  "propertyIsEnumerable",
];
const PARAM_NAMES = [
  "variables",
  "outputs",
  "answer",
  "system",
  "user",
  "query_variable_selector",
  "classes",
  "instruction",
  "code",
  "variable_selector",
  "url",
  "cases",
  "variable",
  "operator",
  "query",
  "parameters",
  "template",
  "iterator_selector",
  "output_selector",
  "text",
  "prompt",
  "mermaid_code",
  "target_type",
  "md_text",
  "chart_type",
  "chart_title",
  "data",
  "x_axisORcategories",
];
const IDS = ["1", "2", "3", "4", "2-1", "2-2", "3-1", "1-1-1", "-", "", " ", ...PROTO_NAMES];

const hostileString = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ...PROTO_NAMES,
      "",
      " ",
      "1",
      "-1",
      "2-1",
      "and",
      "or",
      "desc",
      "pie",
      "filter_by",
      "limit",
      "string",
      "number",
      "array[file]",
      "object",
      "source",
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "{{#constructor.x#}}",
      "{{#__proto__.text#}}",
      "{{#'1'.text#}}",
      "{{#2.valueOf#}}",
      "{{#sys.query#}}",
      "{{#1.#}}",
      "def main(x):\n  return {}",
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
);
const id = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...IDS) },
  { weight: 1, arbitrary: fc.integer({ min: -2, max: 5 }) },
);
const num = fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom(1e308, -1e308, 0.5, -0, 2 ** 53 + 2, 1e21));
const atom = fc.oneof(hostileString, num, fc.boolean(), fc.constant(null));
const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTO_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...PARAM_NAMES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

const { value } = fc.letrec<{ value: unknown; shaped: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4, noNullPrototype: true }),
    tie("shaped"),
  ),
  // The shapes the compact format expects, with hostile parts: references, bindings, conditions, cases.
  shaped: fc.oneof(
    fc.tuple(hostileString, id),
    fc.tuple(hostileString, fc.tuple(hostileString, id)),
    fc.array(fc.tuple(hostileString, fc.oneof(fc.tuple(hostileString, id), atom)), { maxLength: 3 }),
    fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom("and", "or", null), atom),
        fc.array(fc.tuple(fc.tuple(hostileString, id), hostileString, tie("value")), { maxLength: 2 }),
      ),
      { maxLength: 2 },
    ),
  ),
}));

const nodeType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ALL_COMPACT_TYPES) },
  { weight: 2, arbitrary: fc.constantFrom(...nodeCatalogue.all().map((t) => t.type)) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_NAMES) },
);

const node = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        id,
        type: nodeType,
        param: fc.oneof(
          { weight: 5, arbitrary: fc.dictionary(key, value, { maxKeys: 5, noNullPrototype: true }) },
          { weight: 1, arbitrary: value },
        ),
        title: value,
      },
      { requiredKeys: ["id", "type"] },
    ),
  },
  { weight: 1, arbitrary: value },
);
const edge = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(id, fc.oneof(num, value), id) },
  { weight: 1, arbitrary: value },
);

/** A compact workflow object whose every part may be hostile. */
export const hostileWorkflow = fc
  .record({
    nodes_info: fc.oneof({ weight: 9, arbitrary: fc.array(node, { maxLength: 7 }) }, { weight: 1, arbitrary: value }),
    edges: fc.oneof({ weight: 9, arbitrary: fc.array(edge, { maxLength: 8 }) }, { weight: 1, arbitrary: value }),
    extra: fc.option(fc.dictionary(key, value, { maxKeys: 2, noNullPrototype: true })),
  })
  .map(({ extra, ...w }) => ({ ...(extra ?? {}), ...w }));

/** Deep nesting: a model that loops on brackets. */
const deep = fc
  .record({
    depth: fc.integer({ min: 50, max: 20_000 }),
    open: fc.constantFrom("[", '{"a":'),
    where: fc.constantFrom("param", "edges", "root"),
  })
  .map(({ depth, open, where }) => {
    const close = open === "[" ? "]" : "}";
    const nest = `${open.repeat(depth)}1${close.repeat(depth)}`;
    if (where === "root") return nest;
    if (where === "edges") return `{"nodes_info":[{"id":"1","type":"start","param":{}}],"edges":${nest}}`;
    return `{"nodes_info":[{"id":"1","type":"llm","param":{"system":${nest}}}],"edges":[]}`;
  });

const wrap = (json: string, how: number) =>
  [
    `<node_selection>Start, LLM, End</node_selection>\n<design_principle>x</design_principle>\n<workflow>${json}</workflow>`,
    `<node_selection>constructor</node_selection><design_principle></design_principle><workflow>\`\`\`json\n${json}\n\`\`\`</workflow>`,
    `<workflow>${json}`,
    json,
  ][how]!;

/** Real answers of eight models to the Chat2Workflow rounds whose workflow JSON parses: seeds to mutate. */
function realAnswers(): Array<{ selection: string; principle: string; workflow: unknown }> {
  const dir = corpusPath("chat2workflow", "model-outputs");
  const out: Array<{ selection: string; principle: string; workflow: unknown }> = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith(".json"))
    .sort()) {
    for (const r of JSON.parse(readFileSync(join(dir, f), "utf8")) as Array<Record<string, unknown>>) {
      try {
        out.push({
          selection: String(r.node_selection ?? ""),
          principle: String(r.design_principle ?? ""),
          workflow: JSON.parse(String(r.workflow)),
        });
      } catch {
        // malformed JSON answers are covered by the truncation arbitrary
      }
    }
  }
  return out;
}

/** Every container in a JSON value with its keys, iteratively (the seeds are real, so shallow). */
function containers(v: unknown): Array<Record<string, unknown> | unknown[]> {
  const out: Array<Record<string, unknown> | unknown[]> = [];
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x !== null && typeof x === "object") {
      out.push(x as Record<string, unknown>);
      stack.push(...Object.values(x));
    }
  }
  return out;
}

const mutation = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom("replace", "replace", "add-key", "delete"), value, key);

/** A real model answer with one to three spots replaced by hostile values or keys. */
export function mutatedAnswer(seeds = realAnswers()) {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([seed, muts]) => {
    const wf = structuredClone(seed.workflow);
    for (const [at, slot, how, v, k] of muts) {
      const all = containers(wf);
      if (all.length === 0) break;
      const box = all[at % all.length]!;
      const keys = Object.keys(box);
      const target = keys.length ? keys[slot % keys.length]! : k;
      if (how === "add-key" && !Array.isArray(box))
        Object.defineProperty(box, k, { value: v, enumerable: true, writable: true, configurable: true });
      else if (how === "delete" && keys.length) Array.isArray(box) ? box.splice(Number(target), 1) : delete box[target];
      else (box as Record<string, unknown>)[target] = v;
    }
    return `<node_selection>${seed.selection}</node_selection>\n<design_principle>${seed.principle}</design_principle>\n<workflow>${JSON.stringify(wf)}</workflow>`;
  });
}

/** A whole answer text: tags, fences, truncation around a hostile workflow (or deep nesting). */
export const hostileAnswer = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(
        hostileWorkflow,
        fc.constantFrom(0, 0, 0, 1, 1, 2, 3),
        fc.option(fc.double({ min: 0.1, max: 0.99, noNaN: true })),
      )
      .map(([w, how, cut]) => {
        const json = JSON.stringify(w);
        return wrap(cut ? json.slice(0, Math.floor(json.length * cut)) : json, how);
      }),
  },
  { weight: 1, arbitrary: fc.tuple(deep, fc.integer({ min: 0, max: 1 })).map(([json, how]) => wrap(json, how)) },
  {
    weight: 1,
    arbitrary: fc.tuple(value, fc.integer({ min: 0, max: 3 })).map(([v, how]) => wrap(JSON.stringify(v) ?? "", how)),
  },
);

/** Typed outcomes carry the first problem code (or "clean" for a workflow without problems) so a run shows how deep inputs got. */
export type Outcome = { kind: "typed"; code: string } | { kind: "untyped"; reason: string };

/** A host value (function, class instance) that reached the IR from a lookup through a prototype. */
function hostValue(v: unknown, path: string, seen = new Set<unknown>()): string | undefined {
  if (typeof v === "function") return path;
  if (!v || typeof v !== "object" || seen.has(v)) return undefined;
  seen.add(v);
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null)
    return `${path} (${proto?.constructor?.name ?? "?"})`;
  for (const [k, x] of Object.entries(v)) {
    const found = hostValue(x, `${path}.${k}`, seen);
    if (found) return found;
  }
  return undefined;
}

/**
 * Read one answer the way `weft generate` does and judge the outcome: typed when it ends in coded
 * diagnostics or in a clean workflow that exports; untyped when anything throws or a host value
 * reaches the workflow.
 */
export function judgeAnswer(text: string): Outcome {
  try {
    const r = readAnswer(text);
    const bad = r.problems.find((d) => typeof d.code !== "string" || !d.code || typeof d.message !== "string");
    if (bad) return { kind: "untyped", reason: `diagnostic without code/message: ${JSON.stringify(bad)}` };
    if (r.workflow) {
      const host = hostValue(r.workflow, "workflow");
      if (host) return { kind: "untyped", reason: `host value in the workflow at ${host}` };
      if (r.problems.length === 0) {
        exportDify(r.workflow);
        projectWorkflow(r.workflow);
      }
    }
    if (!r.workflow && r.problems.length === 0) return { kind: "untyped", reason: "no workflow and no problem" };
    return { kind: "typed", code: r.problems[0]?.code ?? "clean" };
  } catch (e) {
    const err = e as Error;
    const frame =
      err?.stack
        ?.split("\n")
        .find((l) => l.includes("/src/"))
        ?.trim() ?? "";
    return {
      kind: "untyped",
      reason: `${err?.constructor?.name ?? typeof e}: ${String(err?.message ?? e).slice(0, 120)} ${frame}`,
    };
  }
}
