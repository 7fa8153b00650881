import { FAILSAFE_SCHEMA, type LoadOptions, load, Type, YAMLException } from "js-yaml";
import {
  BOOL_FALSE,
  BOOL_TRUE,
  FLOAT_FORMS,
  INT_FORMS,
  NULL,
  resolveFloat,
  resolveInt,
  TIMESTAMP,
} from "./py-scalars.js";

/**
 * Reading YAML the way Dify does (PyYAML's `safe_load`). js-yaml builds plain values in one pass, without the
 * document model (nodes, source ranges, comments) that the `yaml` package composes first and that nothing here
 * needs: on the real Dify corpus that model was ~90% of import time. Its YAML 1.2 resolvers are replaced by
 * PyYAML's (py-scalars.ts). Timestamps stay strings (PyYAML would build datetimes, which Dify cannot store);
 * duplicate keys keep the last value, as PyYAML does.
 */

/** `first` rules out most plain scalars (prose, ids) before any of the full patterns run. */
const matchesAny =
  (forms: RegExp[], first: RegExp = /./) =>
  (s: string | null) =>
    s !== null && first.test(s.charAt(0)) && forms.some((re) => re.test(s));
const NUMERIC_START = /[-+0-9.]/;

const PY_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type("tag:yaml.org,2002:null", {
      kind: "scalar",
      resolve: (s: string | null) => s === null || NULL.test(s),
      construct: () => null,
    }),
    new Type("tag:yaml.org,2002:bool", {
      kind: "scalar",
      resolve: matchesAny([BOOL_TRUE, BOOL_FALSE], /[yYnNtTfFoO]/),
      construct: (s: string) => BOOL_TRUE.test(s),
    }),
    new Type("tag:yaml.org,2002:int", {
      kind: "scalar",
      resolve: matchesAny(INT_FORMS, NUMERIC_START),
      construct: resolveInt,
    }),
    new Type("tag:yaml.org,2002:float", {
      kind: "scalar",
      resolve: matchesAny(FLOAT_FORMS, NUMERIC_START),
      construct: resolveFloat,
    }),
    new Type("tag:yaml.org,2002:merge", { kind: "scalar", resolve: (s: string | null) => s === "<<" }),
  ],
  // Explicit only: a plain timestamp is already a string, and `!!timestamp` must not build a Date either.
  explicit: [new Type("tag:yaml.org,2002:timestamp", { kind: "scalar", resolve: matchesAny([TIMESTAMP]) })],
});

/** Deeper than any real workflow, shallow enough that the reader and everything after it stay off the stack limit. */
const MAX_DEPTH = 500;
/** An alias may repeat what it names; the whole document may not expand past this many times its own size. */
const MAX_ALIAS_EXPANSION = 100;

export interface YamlProblem {
  message: string;
  line?: number;
  col?: number;
}

export type YamlReadResult =
  | {
      ok: true;
      value: unknown;
      warnings: YamlProblem[];
      /** The text may hold an anchor, so the value may share objects (an alias reads back as the same object). */
      mayShare: boolean;
    }
  | { ok: false; error: YamlProblem };

function problem(e: unknown): YamlProblem {
  if (e instanceof YAMLException) {
    const mark = (e as YAMLException & { mark?: { line: number; column: number } }).mark;
    const message = e.reason || "invalid YAML";
    return mark ? { message, line: mark.line + 1, col: mark.column + 1 } : { message };
  }
  if (e instanceof RangeError) return { message: "the document nests too deeply to read" };
  return { message: e instanceof Error ? e.message : String(e) };
}

/** Parse YAML the way PyYAML's safe_load would; never throws. */
export function readYaml(text: string): YamlReadResult {
  const warnings: YamlProblem[] = [];
  try {
    // maxDepth is js-yaml 4.3's; @types/js-yaml 4.0.9 predates it.
    const options: LoadOptions & { maxDepth: number } = {
      schema: PY_SCHEMA,
      json: true, // duplicate keys: the last one wins, as in PyYAML
      maxDepth: MAX_DEPTH,
      onWarning: (w) => warnings.push(problem(w)),
    };
    const value = load(text, options);
    const mayShare = MAY_HAVE_ANCHOR.test(text);
    const aliasError = mayShare ? checkAliases(value) : undefined;
    if (aliasError) return { ok: false, error: { message: aliasError } };
    return { ok: true, value, warnings, mayShare };
  } catch (err) {
    return { ok: false, error: problem(err) };
  }
}

/**
 * An anchor (`&name`) follows a line start, a space or a flow indicator; without one no alias can resolve, and
 * the walk below is skipped. A false match (prose such as "R &D") only costs the walk.
 */
const MAY_HAVE_ANCHOR = /(?:^|[\s[{,])&[^\s,[\]{}]/m;

/**
 * Aliases come back as shared references, so reading stays cheap even for an alias bomb; but everything after
 * the reader (JSON, hashing, export) walks the expanded tree. Refuse a document whose expansion is far larger than
 * the document itself, or that contains itself.
 */
function checkAliases(root: unknown): string | undefined {
  const seen = new Set<object>();
  let shared = false;
  const count = (v: unknown): void => {
    if (typeof v !== "object" || v === null) return;
    if (seen.has(v)) {
      shared = true;
      return;
    }
    seen.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) count(child);
  };
  count(root);
  if (!shared) return undefined;

  let budget = MAX_ALIAS_EXPANSION * seen.size;
  const onPath = new Set<object>();
  const expand = (v: unknown): string | undefined => {
    if (typeof v !== "object" || v === null) return undefined;
    if (onPath.has(v)) return "an alias refers to a node that contains it (a recursive document)";
    if (--budget < 0) return `aliases expand the document more than ${MAX_ALIAS_EXPANSION}-fold (an alias bomb)`;
    onPath.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      const e = expand(child);
      if (e) return e;
    }
    onPath.delete(v);
    return undefined;
  };
  return expand(root);
}
