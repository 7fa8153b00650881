// The length in lines of every function of a source tree, read with the TypeScript parser: declarations,
// methods, accessors, constructors, arrow functions and function expressions. A function's length is its whole
// span, nested functions included, so registering twenty routes in one function counts as one long function.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import ts from "typescript";
import { sourceFiles } from "./import-graph.js";

export interface FunctionLength {
  /** path relative to the root given, then the function's name as a reader would search for it */
  where: string;
  lines: number;
}

function nameOf(n: ts.Node): string {
  if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isAccessor(n)) && n.name) {
    return n.name.getText();
  }
  if (ts.isConstructorDeclaration(n)) return "constructor";
  const parent = n.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) {
    const callee = parent.expression.getText().replace(/\s+/g, "");
    return `(callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee})`;
  }
  return "(anonymous)";
}

function isFunction(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isAccessor(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isArrowFunction(n) ||
    ts.isFunctionExpression(n)
  );
}

/** Every function of the files under `dir`, with its length in lines (first line to last, both counted). */
export function functionLengths(dir: string, root = dir): FunctionLength[] {
  const out: FunctionLength[] = [];
  for (const file of sourceFiles(dir)) {
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node) => {
      if (isFunction(n) && n.body) {
        const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
        out.push({ where: `${relative(root, file)} ${nameOf(n)}`, lines: last - first + 1 });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** The functions longer than `limit` lines, longest first, as "path name (N lines)". */
export function longFunctions(dir: string, limit: number, root = dir): string[] {
  return functionLengths(dir, root)
    .filter((f) => f.lines > limit)
    .sort((a, b) => b.lines - a.lines)
    .map((f) => `${f.where} (${f.lines} lines)`);
}
