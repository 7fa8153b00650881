import { FAILSAFE_SCHEMA, type LoadOptions, load, Type, YAMLException } from "js-yaml";
import {
  constructPyImplicit,
  isBoolForm,
  isFloatForm,
  isIntForm,
  isNullForm,
  resolvePyImplicit,
} from "./py-implicit.js";
import { BOOL_TRUE, resolveFloat, resolveInt, TIMESTAMP } from "./py-scalars.js";

/**
 * Reading YAML the way Dify does (PyYAML's `safe_load`). js-yaml builds plain values in one pass, without the
 * document model (nodes, source ranges, comments) that the `yaml` package composes first and that nothing here
 * needs: on the real Dify corpus that model was ~90% of import time. Its YAML 1.2 resolvers are replaced by
 * PyYAML's (py-scalars.ts). Timestamps stay strings (PyYAML would build datetimes, which Dify cannot store);
 * duplicate keys keep the last value, as PyYAML does.
 */

/**
 * One implicit type decides null, bool, int and float (py-implicit.ts: one call per plain scalar instead of one per
 * form); merge keys keep their own, since js-yaml knows a merge key by its type's tag. The implicit type's tag is
 * never looked up: a tag written in the document (`!!int '7'`) finds the explicit type of that form, listed after
 * it, which takes the tag's place in js-yaml's map.
 */
const PY_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type("tag:yaml.org,2002:float", {
      kind: "scalar",
      resolve: resolvePyImplicit,
      construct: constructPyImplicit,
    }),
    new Type("tag:yaml.org,2002:merge", { kind: "scalar", resolve: (s: string | null) => s === "<<" }),
  ],
  explicit: [
    new Type("tag:yaml.org,2002:null", { kind: "scalar", resolve: isNullForm, construct: () => null }),
    new Type("tag:yaml.org,2002:bool", {
      kind: "scalar",
      resolve: isBoolForm,
      construct: (s: string) => BOOL_TRUE.test(s),
    }),
    new Type("tag:yaml.org,2002:int", { kind: "scalar", resolve: isIntForm, construct: resolveInt }),
    new Type("tag:yaml.org,2002:float", { kind: "scalar", resolve: isFloatForm, construct: resolveFloat }),
    // A plain timestamp is already a string, and `!!timestamp` must not build a Date either.
    new Type("tag:yaml.org,2002:timestamp", {
      kind: "scalar",
      resolve: (s: string | null) => s !== null && TIMESTAMP.test(s),
    }),
  ],
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
      /** The value shares objects: an alias read back as the same object as its anchor. */
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
    if (!mayHaveAnchor(text)) return { ok: true, value, warnings, mayShare: false };
    const aliases = checkAliases(value);
    if (aliases.error) return { ok: false, error: { message: aliases.error } };
    return { ok: true, value, warnings, mayShare: aliases.shared };
  } catch (err) {
    return { ok: false, error: problem(err) };
  }
}

const ANCHOR_BEFORE = /[\s[{,]/;
const ANCHOR_AFTER = /[^\s,[\]{}]/;

/**
 * An anchor (`&name`) follows the text's start, a space, a line break or a flow indicator, and a name character
 * follows it; without one no alias can resolve, and the walk below is skipped. Most documents have no `&` at
 * all, so `indexOf` (no regex over the whole text) finds the few candidates. A false match (prose such as
 * "R &D") only costs the walk.
 */
function mayHaveAnchor(text: string): boolean {
  for (let i = text.indexOf("&"); i !== -1; i = text.indexOf("&", i + 1)) {
    if ((i === 0 || ANCHOR_BEFORE.test(text.charAt(i - 1))) && ANCHOR_AFTER.test(text.charAt(i + 1))) return true;
  }
  return false;
}

/**
 * Aliases come back as shared references, so reading stays cheap even for an alias bomb; but everything after
 * the reader (JSON, hashing, export) walks the expanded tree. Refuse a document whose expansion is far larger than
 * the document itself, or that contains itself.
 */
function checkAliases(root: unknown): { shared: boolean; error?: string } {
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
  // No object reached twice: the anchors named nothing that an alias repeats, and the value is a tree.
  if (!shared) return { shared: false };

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
  const error = expand(root);
  return error ? { shared: true, error } : { shared: true };
}
