import { parse, Template, tokenize } from "@huggingface/jinja";
import { WeftError } from "../ir/errors.js";

export class JinjaError extends WeftError {}

/** Dify caps rendered template output (TEMPLATE_TRANSFORM_MAX_LENGTH). */
export const TEMPLATE_MAX_LENGTH = 400_000;

function describe(e: unknown): string {
  if (e instanceof Error) {
    // The library reports some unclosed blocks as TypeErrors from its parser internals.
    return e instanceof TypeError ? `template is malformed (unclosed or unbalanced block): ${e.message}` : e.message;
  }
  return String(e);
}

/** Parse only: returns the syntax error message, or undefined when the template is well-formed. */
export function jinjaSyntaxError(source: string): string | undefined {
  try {
    compile(source);
    return undefined;
  } catch (e) {
    return describe(e);
  }
}

/**
 * Parse as stock Jinja2 does (trim_blocks and lstrip_blocks off). The library's Template constructor
 * hard-codes both on (chat-template style), which eats the newline after every block tag and the
 * indentation before it; Dify renders with `Template(src)`, where both are off.
 */
function compile(source: string): Template {
  const tpl = new Template("");
  tpl.parsed = parse(tokenize(source, { trim_blocks: false, lstrip_blocks: false }));
  return tpl;
}

/**
 * Render with Jinja2 semantics as Dify's template-transform does: undefined names render empty, no
 * autoescape, the trailing newline is dropped. Known deviation of the library from CPython Jinja2:
 * `True`/`None` print as `true`/empty.
 */
export function renderJinja(source: string, vars: Record<string, unknown>): string {
  let tpl: Template;
  try {
    tpl = compile(source);
  } catch (e) {
    throw new JinjaError("jinja.syntax", `template syntax error: ${describe(e)}`);
  }
  let out: string;
  try {
    out = tpl.render(vars);
  } catch (e) {
    throw new JinjaError("jinja.render", `template failed to render: ${describe(e)}`);
  }
  if (out.length > TEMPLATE_MAX_LENGTH) {
    throw new JinjaError("jinja.too_long", `rendered template is ${out.length} characters (limit ${TEMPLATE_MAX_LENGTH})`);
  }
  return out;
}
