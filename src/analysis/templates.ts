import { parse, tokenize } from "@huggingface/jinja";
import type { TextField } from "../ir/registry.js";
import { malformedTemplateRefs, templateRefs } from "../ir/selector.js";
import type { DiagnosticSink } from "./codes.js";
import type { AnalysisGraph, Read } from "./graph.js";

/** The `{{#…#}}` references of a node's Dify-kind texts, as reads (resolved by dataflow.ts). */
export function templateReads(idx: number, texts: readonly TextField[]): Read[] {
  const out: Read[] = [];
  for (const t of texts) {
    if (t.kind !== "dify" || typeof t.text !== "string") continue;
    for (const r of templateRefs(t.text)) {
      out.push({ reader: idx, selector: r.selector, field: t.field, optional: false, template: true });
    }
  }
  return out;
}

/** Lexical checks on texts: near-miss references in Dify texts, syntax of Jinja2 texts. */
export function checkTemplates(g: AnalysisGraph, sink: DiagnosticSink): void {
  for (const n of g.nodes) {
    for (const t of n.desc.texts) {
      if (typeof t.text !== "string") continue;
      if (t.kind === "dify") {
        for (const raw of malformedTemplateRefs(t.text)) {
          sink.add(
            "template.malformed_ref",
            `${raw} is not a valid reference (node ids are [A-Za-z0-9_], names start with a letter or _); Dify renders it as plain text`,
            { nodeId: n.id, field: t.field },
          );
        }
      } else if (t.kind === "jinja2") {
        const err = jinjaSyntaxError(t.text);
        if (err) sink.add("jinja.syntax", `Jinja2 syntax error: ${err}`, { nodeId: n.id, field: t.field });
      }
    }
  }
}

/** Tokenize and parse only; the message of the first syntax error, or undefined. */
export function jinjaSyntaxError(source: string): string | undefined {
  try {
    parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
    return undefined;
  } catch (e) {
    // The parser reports some unclosed blocks as a TypeError from its internals.
    if (e instanceof TypeError) return `unexpected end of template (an unclosed {% … %} block?)`;
    return e instanceof Error ? e.message : String(e);
  }
}
