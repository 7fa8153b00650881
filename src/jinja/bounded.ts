import { Environment, Interpreter, parse, tokenize } from "@huggingface/jinja";
import { JinjaError } from "./errors.js";

/**
 * A Jinja2 render that cannot run away: every expression evaluation and every block render (so
 * every loop iteration) costs one step, `range()` is capped as in Jinja's own sandbox, every list,
 * mapping and string the template computes is size-checked as it is made, and output is counted
 * as it is appended, so an over-long result stops while it is being built. Wall-clock and memory
 * limits are the worker's job (pool.ts); these budgets make the common bombs fail fast, exactly
 * and with a named limit, and keep any single allocation far below V8's fatal sizes.
 */

export interface JinjaBudget {
  /** Expression evaluations plus block renders; each loop iteration renders its body once. */
  maxSteps: number;
  /** Items one `range()` call may produce. Jinja's SandboxedEnvironment uses MAX_RANGE = 100000. */
  maxRange: number;
  /** Items of a list or mapping the template computes (inputs may be larger; see `scaledBudget`). */
  maxItems: number;
  /** Characters of a string the template computes, or of a captured block (`set`, macro, filter). */
  maxChars: number;
  /** Characters of output: Dify's TEMPLATE_TRANSFORM_MAX_LENGTH. */
  maxOutput: number;
}

export const DEFAULT_BUDGET: Readonly<JinjaBudget> = Object.freeze({
  maxSteps: 10_000_000,
  maxRange: 100_000,
  maxItems: 1_000_000,
  maxChars: 4_000_000,
  maxOutput: 400_000,
});

type Program = ReturnType<typeof parse>;
type Node = { type: string; value?: unknown; body?: unknown[] };
type Value = { type: string; value: unknown; toString(): string };

/** The interpreter's own methods this module hooks; they are private in the library's typings. */
interface Internals {
  evaluate(node: Node | undefined, env: Environment): Value;
  renderBlock(nodes: Node[], env: Environment): string;
  renderIf(node: Node, env: Environment): string;
  renderFor(node: Node, env: Environment): string;
  executeSet(node: Node, env: Environment): void;
}

/**
 * Parse as stock Jinja2 does (trim_blocks and lstrip_blocks off). The library's Template constructor
 * hard-codes both on (chat-template style); Dify renders with `Template(src)`, where both are off.
 */
export function compileJinja(source: string): Program {
  const hit = compiled.get(source);
  if (hit) {
    // Re-inserted so the map's order is least recently used first.
    compiled.delete(source);
    compiled.set(source, hit);
    return hit;
  }
  let program: Program;
  try {
    program = parse(tokenize(source, { trim_blocks: false, lstrip_blocks: false }));
  } catch (e) {
    throw new JinjaError("jinja.syntax", `template syntax error: ${describe(e)}`);
  }
  if (source.length <= COMPILED_MAX_SOURCE) {
    compiled.set(source, program);
    compiledChars += source.length;
    while (compiled.size > COMPILED_MAX_ENTRIES || compiledChars > COMPILED_MAX_TOTAL) {
      const oldest = compiled.keys().next().value as string;
      compiled.delete(oldest);
      compiledChars -= oldest.length;
    }
  }
  return program;
}

/**
 * Parsed templates by source: a workflow renders the same few templates on every run (and every loop round),
 * and parsing cost as much as rendering. The interpreter only reads the tree (the library's own Template
 * renders one parse many times), so sharing it is safe. Bounded in entries and in the source characters kept.
 */
const compiled = new Map<string, Program>();
let compiledChars = 0;
const COMPILED_MAX_ENTRIES = 512;
/** A syntax tree is tens of times its source: these keep the cache to a few MB even in a render thread's heap. */
const COMPILED_MAX_SOURCE = 16 * 1024;
const COMPILED_MAX_TOTAL = 256 * 1024;

function describe(e: unknown): string {
  if (e instanceof Error) {
    // The library reports some unclosed blocks as TypeErrors from its parser internals.
    return e instanceof TypeError ? `template is malformed (unclosed or unbalanced block): ${e.message}` : e.message;
  }
  return String(e);
}

/**
 * Inputs are not the template's doing: a 10 MB document may be sliced or measured, so the caps on
 * computed values grow to twice the largest input string or collection.
 */
export function scaledBudget(budget: JinjaBudget, vars: Record<string, unknown>): JinjaBudget {
  let chars = 0;
  let items = 0;
  const stack: unknown[] = [vars];
  // Bounded walk: a value graph larger than this is refused by the caps it would raise anyway.
  for (let seen = 0; stack.length > 0 && seen < 10_000_000; seen++) {
    const v = stack.pop();
    if (typeof v === "string") chars = Math.max(chars, v.length);
    else if (Array.isArray(v)) {
      items = Math.max(items, v.length);
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === "object") {
      const values = Object.values(v);
      items = Math.max(items, values.length);
      for (const x of values) stack.push(x);
    }
  }
  return {
    ...budget,
    maxChars: Math.max(budget.maxChars, 2 * chars),
    maxItems: Math.max(budget.maxItems, 2 * items),
  };
}

/** Render synchronously within `budget`. Runs inside a render worker; tests call it directly. */
export function renderBounded(
  source: string,
  vars: Record<string, unknown>,
  budget: JinjaBudget = DEFAULT_BUDGET,
): string {
  return renderWithin(source, vars, scaledBudget(budget, vars));
}

/** Render within `limits`, already scaled to the inputs (see `scaledBudget`). */
export function renderWithin(source: string, vars: Record<string, unknown>, limits: JinjaBudget): string {
  const program = compileJinja(source);
  const shared = globalsFor(limits.maxRange);
  // The render's own scope: the template's `set`s and its variables land here, the globals stay shared.
  const env = new Environment(shared.env);
  for (const k in vars) {
    if (!Object.hasOwn(vars, k)) continue;
    try {
      // As in Jinja2's render(**vars), a variable named like a global (range, true ...) wins.
      env.variables.delete(k);
      env.set(k, vars[k]);
    } catch (e) {
      throw inputError(k, e);
    }
  }
  const interpreter = new MeteredInterpreter(env, limits, shared.reprs);
  let out: Value;
  try {
    out = interpreter.run(program) as Value;
  } catch (e) {
    throw renderError(e);
  }
  const text = String(out.value);
  if (text.length > limits.maxOutput) {
    throw new JinjaError(
      "jinja.too_long",
      `rendered template is ${text.length} characters (limit ${limits.maxOutput})`,
      {
        limit: limits.maxOutput,
      },
    );
  }
  return text;
}

/** Every name a template sees before its variables: the library's globals and the ones added here. */
export function globalNames(): string[] {
  const shared = globalsFor(DEFAULT_BUDGET.maxRange).env;
  return [...new Set([...new Environment(shared).variables.keys(), ...shared.variables.keys()])];
}

interface SharedGlobals {
  env: Environment;
  reprs: FunctionReprs;
}

/**
 * The globals' scope, one per `range()` cap, shared by every render with that cap: building it (eight converted
 * values, two closures, the library's own `namespace`) on every render was a large share of a small template's
 * allocations. Sharing is safe because a template cannot change it: `set` declares in the render's own scope,
 * and attribute assignment works only on namespace objects, which every `namespace()` call makes anew. Budgets
 * come from a handful of constants, so this holds a few entries; an unexpected spread of caps is not cached.
 */
const sharedGlobals = new Map<number, SharedGlobals>();
const SHARED_GLOBALS_MAX = 16;

function globalsFor(maxRange: number): SharedGlobals {
  const hit = sharedGlobals.get(maxRange);
  if (hit) return hit;
  const env = globals(maxRange);
  const made = { env, reprs: functionReprs(env) };
  if (sharedGlobals.size < SHARED_GLOBALS_MAX) sharedGlobals.set(maxRange, made);
  return made;
}

/** Stock Jinja2's globals (range, namespace, true/false/none and their title-case forms). */
function globals(maxRange: number): Environment {
  const env = new Environment();
  for (const [k, v] of [
    ["true", true],
    ["false", false],
    ["none", null],
    ["True", true],
    ["False", false],
    ["None", null],
  ] as const)
    env.set(k, v);
  env.set("raise_exception", (message: unknown) => {
    throw new Error(String(message));
  });
  env.set("range", (...args: unknown[]) => boundedRange(args, maxRange));
  return env;
}

type FunctionReprs = WeakMap<object, string>;

/** How Jinja2 prints these globals (`{{ namespace }}` → `<class 'jinja2.utils.Namespace'>`). */
const GLOBAL_REPRS: Readonly<Record<string, string>> = {
  namespace: "<class 'jinja2.utils.Namespace'>",
  range: "<class 'range'>",
  raise_exception: "<function raise_exception>",
};

function functionReprs(env: Environment): FunctionReprs {
  const reprs: FunctionReprs = new WeakMap();
  for (const [name, text] of Object.entries(GLOBAL_REPRS)) {
    const v = env.variables.get(name) as Value | undefined;
    if (v?.type === "FunctionValue" && typeof v.value === "function") reprs.set(v.value, text);
  }
  return reprs;
}

/**
 * A function the template gets hold of (a global, a macro, a method such as `'a'.upper`) prints as a
 * short repr, never as its JavaScript source: the library prints functions with String(), which showed
 * the host's library code (issue 28 F). Every value a template computes passes through evaluate, and
 * the library's `~`, `+`, filters and messages all call the function's own toString, so the label is
 * set there, on the function itself.
 */
function hideSource(v: Value, reprs: FunctionReprs): Value {
  const fn = v.value;
  if (v.type === "FunctionValue" && typeof fn === "function" && !Object.hasOwn(fn, "toString")) {
    const text = reprs.get(fn) ?? "<function>";
    Object.defineProperty(fn, "toString", { value: () => text });
  }
  return v;
}

function boundedRange(args: unknown[], max: number): number[] {
  if (args.length < 1 || args.length > 3) throw new Error(`range expected 1 to 3 arguments, got ${args.length}`);
  for (const a of args) {
    if (typeof a !== "number" || !Number.isInteger(a)) {
      throw new Error(`range() arguments must be integers, got ${JSON.stringify(a)}`);
    }
  }
  const [start, stop, step] = (args.length === 1 ? [0, args[0], 1] : [args[0], args[1], args[2] ?? 1]) as number[];
  if (step === 0) throw new Error("range() step must not be zero");
  const count = Math.max(0, Math.ceil(((stop as number) - (start as number)) / (step as number)));
  if (count > max) {
    throw new JinjaError("jinja.too_large", `range() of ${count} items is over the limit of ${max}`, { limit: max });
  }
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) out[i] = (start as number) + i * (step as number);
  return out;
}

/** The library's Interpreter as this module overrides it (those methods are private in its typings). */
const InterpreterBase = Interpreter as unknown as new (
  env: Environment,
) => Internals & {
  run(program: Program): unknown;
  evaluateCallExpression(...a: unknown[]): unknown;
  evaluateFilterExpression(...a: unknown[]): unknown;
  evaluateCallStatement(...a: unknown[]): unknown;
  evaluateFilterStatement(...a: unknown[]): unknown;
};

/**
 * The interpreter with the budget metered in: the library calls these methods through `this`, so the overrides
 * see every step. Counters are sticky: once a budget is spent, every later step throws, so a library path that
 * swallows one error cannot carry the render on. A class, not hooks set on each instance: a render used to
 * allocate a dozen closures for them.
 */
class MeteredInterpreter extends InterpreterBase {
  private steps = 0;
  private emitted = 0;
  /** Characters rendered inside each open capture (a macro call, a filter or set block). */
  private readonly captures: number[] = [];

  constructor(
    env: Environment,
    private readonly limits: JinjaBudget,
    private readonly reprs: FunctionReprs,
  ) {
    super(env);
  }

  private tick(): void {
    if (++this.steps > this.limits.maxSteps) {
      throw new JinjaError("jinja.too_many_steps", `template rendering took more than ${this.limits.maxSteps} steps`, {
        limit: this.limits.maxSteps,
      });
    }
  }

  private append(text: string): void {
    const captures = this.captures;
    const limits = this.limits;
    const top = captures.length - 1;
    if (top >= 0) {
      captures[top] = (captures[top] as number) + text.length;
      if ((captures[top] as number) > limits.maxChars) {
        throw new JinjaError("jinja.too_large", `a block built more than ${limits.maxChars} characters`, {
          limit: limits.maxChars,
        });
      }
      return;
    }
    this.emitted += text.length;
    if (this.emitted > limits.maxOutput) {
      throw new JinjaError(
        "jinja.too_long",
        `rendered template passed ${limits.maxOutput} characters while rendering (limit ${limits.maxOutput})`,
        { limit: limits.maxOutput },
      );
    }
  }

  override evaluate(node: Node | undefined, env: Environment): Value {
    this.tick();
    return checkSize(hideSource(super.evaluate(node, env), this.reprs), this.limits);
  }

  /** Runs a capturing method with its own character count. */
  private capturing(value: () => unknown): unknown {
    this.captures.push(0);
    try {
      return value();
    } finally {
      this.captures.pop();
    }
  }

  override evaluateCallExpression(...a: unknown[]): unknown {
    return this.capturing(() => super.evaluateCallExpression(...a));
  }
  override evaluateFilterExpression(...a: unknown[]): unknown {
    return this.capturing(() => super.evaluateFilterExpression(...a));
  }
  override evaluateCallStatement(...a: unknown[]): unknown {
    return this.capturing(() => super.evaluateCallStatement(...a));
  }
  override evaluateFilterStatement(...a: unknown[]): unknown {
    return this.capturing(() => super.evaluateFilterStatement(...a));
  }
  override executeSet(node: Node, env: Environment): void {
    this.capturing(() => super.executeSet(node, env));
  }

  // Mirrors the library's renderBlock (0.5.13), adding the step and the output count per append.
  override renderBlock(nodes: Node[], env: Environment): string {
    this.tick();
    let result = "";
    for (const node of nodes) {
      let piece = "";
      switch (node.type) {
        case "StringLiteral":
          piece = node.value as string;
          break;
        case "If":
          result += this.renderIf(node, env);
          continue;
        case "For":
          result += this.renderFor(node, env);
          continue;
        case "Set":
          this.executeSet(node, env);
          continue;
        case "Comment":
          continue;
        default: {
          const v = this.evaluate(node, env);
          if (v.type !== "NullValue" && v.type !== "UndefinedValue") piece = v.toString();
        }
      }
      this.append(piece);
      result += piece;
    }
    return result;
  }
}

function checkSize(v: Value, limits: JinjaBudget): Value {
  const raw = v.value;
  if (typeof raw === "string" && raw.length > limits.maxChars) {
    throw new JinjaError(
      "jinja.too_large",
      `a string of ${raw.length} characters is over the limit of ${limits.maxChars}`,
      {
        limit: limits.maxChars,
      },
    );
  }
  const items = Array.isArray(raw) ? raw.length : raw instanceof Map ? raw.size : 0;
  if (items > limits.maxItems) {
    throw new JinjaError("jinja.too_large", `a collection of ${items} items is over the limit of ${limits.maxItems}`, {
      limit: limits.maxItems,
    });
  }
  return v;
}

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

function inputError(name: string, e: unknown): JinjaError {
  if (isStackOverflow(e))
    return new JinjaError("jinja.too_deep", `variable ${name} is nested too deeply`, { variable: name });
  return new JinjaError("jinja.bad_input", `variable ${name} cannot be used in a template: ${describe(e)}`, {
    variable: name,
  });
}

function renderError(e: unknown): JinjaError {
  if (e instanceof JinjaError) return e;
  if (isStackOverflow(e)) {
    return new JinjaError("jinja.too_deep", "template recursion is too deep (a macro calling itself without end?)");
  }
  return new JinjaError("jinja.render", `template failed to render: ${describe(e)}`);
}
