import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { EXIT } from "../../src/errors/statuses.js";

/** One error or diagnostic code as the source spells it, and where. */
export interface CodeSite {
  /** The literal code, or for a template literal its text with each `${…}` written as `*`. */
  code: string;
  file: string;
  line: number;
  /** Why the scanner counts it: the `code` parameter of a call, a `code:` property of an error-shaped object, or a literal typed as a `…Code` union. */
  kind: "argument" | "property" | "typed";
  /** For `new X(…)` / `super(…)`: the error class and its ancestors, nearest first. */
  classes?: string[];
  /** For a plain call: the function called (`fail`, `sink.add`…). */
  callee?: string;
  /** The literal passed for a parameter named `status` (HTTP) or `exitCode` (CLI), when there is one. */
  status?: number;
  exitCode?: number;
  /** The message argument as written, each `${…}` shown as `{…}`. */
  message?: string;
}

/** Codes are short identifiers; a `code` parameter that takes program text (code nodes' source) is not one. */
const CODE_SHAPE = /^[A-Za-z*][\w.*-]*$/;

const repo = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && /\.tsx?$/.test(d.name) && !d.name.endsWith(".d.ts"))
    .map((d) => join(d.parentPath, d.name));
}

/** The string values an expression can take when written out: a literal, a template, or either branch of `?:`. */
function literalValues(e: ts.Expression): string[] {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) {
    return literalValues(e.expression);
  }
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
  if (ts.isTemplateExpression(e)) return [e.head.text + e.templateSpans.map((s) => `*${s.literal.text}`).join("")];
  if (ts.isConditionalExpression(e)) return [...literalValues(e.whenTrue), ...literalValues(e.whenFalse)];
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) {
    return [...literalValues(e.left), ...literalValues(e.right)];
  }
  return [];
}

/** The parameter names of the signature a call or `new`/`super` resolves to. */
function parameterNames(checker: ts.TypeChecker, call: ts.CallExpression | ts.NewExpression): string[] {
  const decl = checker.getResolvedSignature(call)?.getDeclaration();
  if (!decl || !("parameters" in decl)) return [];
  return decl.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ""));
}

/** The class a `new X()` or `super()` constructs, and its ancestors. */
function classChain(checker: ts.TypeChecker, call: ts.CallExpression | ts.NewExpression): string[] {
  let type: ts.Type | undefined = ts.isNewExpression(call)
    ? checker.getTypeAtLocation(call)
    : call.expression.kind === ts.SyntaxKind.SuperKeyword
      ? checker.getTypeAtLocation(call.expression)
      : undefined;
  if (ts.isCallExpression(call) && type) {
    const construct = type.getConstructSignatures()[0];
    type = construct?.getReturnType();
  }
  const out: string[] = [];
  while (type?.isClass()) {
    out.push(type.symbol.name);
    type = checker.getBaseTypes(type)[0];
  }
  return out;
}

/**
 * For a helper such as `fail(code, message)`: the error it throws or returns, read from the first `new X(…)`
 * of a WeftError in its body, with that expression's status literal (`refuse = (code, m) => new ApiError(403, …)`).
 */
function helperError(checker: ts.TypeChecker, call: ts.CallExpression): Partial<CodeSite> {
  const decl = checker.getResolvedSignature(call)?.getDeclaration();
  const body = decl && "body" in decl ? decl.body : undefined;
  let found: Partial<CodeSite> = {};
  const visit = (node: ts.Node): void => {
    if (found.classes) return;
    if (ts.isNewExpression(node)) {
      const classes = classChain(checker, node);
      if (classes.includes("WeftError")) {
        const names = parameterNames(checker, node);
        const status = names.includes("status") ? numberArg(node.arguments?.[names.indexOf("status")]) : undefined;
        found = { classes, ...(status === undefined ? {} : { status }) };
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  if (body) visit(body);
  return found;
}

function messageText(e: ts.Expression | undefined, sf: ts.SourceFile): string | undefined {
  if (!e) return undefined;
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isTemplateExpression(e)) {
    return e.head.text + e.templateSpans.map((s) => `{${s.expression.getText(sf)}}${s.literal.text}`).join("");
  }
  return `{${e.getText(sf)}}`;
}

/** A numeric literal, or `EXIT.usage`-style names of the CLI's exit statuses. */
function numberArg(e: ts.Expression | undefined): number | undefined {
  if (e && ts.isPropertyAccessExpression(e) && e.expression.getText() === "EXIT") {
    return (EXIT as Record<string, number>)[e.name.text];
  }
  return e && ts.isNumericLiteral(e) ? Number(e.text) : undefined;
}

/** zod's `ctx.addIssue({code: "custom"})` and friends carry zod's own codes, not Weft's. */
function isZodIssue(node: ts.ObjectLiteralExpression): boolean {
  const call = node.parent;
  return (
    ts.isCallExpression(call) &&
    ts.isPropertyAccessExpression(call.expression) &&
    call.expression.name.text === "addIssue"
  );
}

/** A literal whose declared type is a code union (`LlmErrorCode`, `AnalysisCode`): codes kept in tables or tuples. */
function isCodeTyped(checker: ts.TypeChecker, node: ts.StringLiteral): boolean {
  // Only tuple and list elements: asking every literal's contextual type would make the scan minutes long.
  if (!ts.isArrayLiteralExpression(node.parent) || !CODE_SHAPE.test(node.text)) return false;
  const type = checker.getContextualType(node);
  return /Code$/.test(type?.aliasSymbol?.name ?? "");
}

function objectMessage(node: ts.ObjectLiteralExpression): ts.Expression | undefined {
  for (const p of node.properties) {
    if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === "message") return p.initializer;
  }
  return undefined;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** An object literal shaped like an error or a diagnostic: a `code` beside a `message` (or a severity). */
function objectCode(node: ts.ObjectLiteralExpression): ts.Expression | undefined {
  let code: ts.Expression | undefined;
  let shaped = false;
  for (const p of node.properties) {
    if (!p.name || !ts.isIdentifier(p.name)) continue;
    if (p.name.text === "code" && ts.isPropertyAssignment(p)) code = p.initializer;
    if (["message", "severity"].includes(p.name.text)) shaped = true;
  }
  return shaped && !isZodIssue(node) ? code : undefined;
}

/**
 * Every code src/ raises, found by meaning rather than by pattern: an argument passed for a parameter named
 * `code` (error constructors, `super(code, …)`, the DSL importers' fail()/warn(), the analyser's sink.add()),
 * and the `code` of an object literal that also has a `message` or `severity` (diagnostics, error bodies).
 * Codes computed at run time (a variable passed on) are found where their literal is written.
 */
export function scanErrorCodes(root = join(repo, "src")): CodeSite[] {
  const program = ts.createProgram(sourceFiles(root), {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const sites: CodeSite[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.startsWith(root) || sf.isDeclarationFile) continue;
    const file = relative(repo, sf.fileName);
    const add = (e: ts.Expression, kind: CodeSite["kind"], more: Partial<CodeSite> = {}) => {
      const line = sf.getLineAndCharacterOfPosition(e.getStart(sf)).line + 1;
      for (const code of literalValues(e)) {
        if (CODE_SHAPE.test(code)) sites.push({ code, file, line, kind, ...more });
      }
    };
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const names = parameterNames(checker, node);
        const arg = (name: string) => (names.includes(name) ? node.arguments?.[names.indexOf(name)] : undefined);
        const code = arg("code");
        if (code) {
          const classes = classChain(checker, node);
          add(code, "argument", {
            ...(classes.length ? { classes } : {}),
            ...(ts.isCallExpression(node) && !classes.length
              ? { callee: node.expression.getText(sf), ...helperError(checker, node) }
              : {}),
            ...definedOnly({ status: numberArg(arg("status")), exitCode: numberArg(arg("exitCode")) }),
            ...definedOnly({ message: messageText(arg("message"), sf) }),
          });
        }
      } else if (ts.isObjectLiteralExpression(node)) {
        const code = objectCode(node);
        if (code) add(code, "property", definedOnly({ message: messageText(objectMessage(node), sf) }));
      } else if (ts.isStringLiteral(node) && isCodeTyped(checker, node)) {
        add(node, "typed");
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return sites;
}

/** Distinct codes, sorted, each with its first site. */
export function distinctCodes(sites: CodeSite[]): Map<string, CodeSite> {
  const out = new Map<string, CodeSite>();
  for (const s of [...sites].sort((a, b) => a.code.localeCompare(b.code))) if (!out.has(s.code)) out.set(s.code, s);
  return out;
}
