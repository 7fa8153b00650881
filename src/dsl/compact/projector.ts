/**
 * The writing side of compact JSON: IR selectors and template references re-targeted from IR node ids
 * to compact ids. The exact inverse of `Converter`'s reading, so a projected value reads back as the
 * value it came from.
 */
import { isReservedHead, replaceTemplateRefs } from "../../ir/selector.js";
import { isPlainObject, type JsonObject, setOwn } from "../../util/json.js";

export class Projector {
  /** @param cid compact id of an IR node id (undefined for ids that name no node: kept as written). */
  constructor(readonly cid: (irId: string) => string | undefined) {}

  private head(id: string): string {
    return isReservedHead(id) ? id : (this.cid(id) ?? id);
  }

  /** IR selector `[id, var, ...path]` → `[var.path, compact id]`; anything else is shown as it is. */
  ref(sel: unknown): unknown {
    if (!Array.isArray(sel) || sel.length < 2 || !sel.every((x) => typeof x === "string")) return sel;
    const [head, ...rest] = sel as string[];
    return [rest.join("."), this.head(head!)];
  }

  text(t: unknown): unknown {
    if (typeof t !== "string") return t;
    return replaceTemplateRefs(t, (sel) => `{{#'${this.head(sel[0]!)}'.${sel.slice(1).join(".")}#}}`);
  }

  /** A Dify config in Dify order: selectors headed by a node id and template text re-targeted. */
  dify(v: unknown): unknown {
    if (typeof v === "string") return v.includes("{{#") ? this.text(v) : v;
    if (Array.isArray(v)) {
      if (v.length >= 2 && v.every((x) => typeof x === "string") && this.cid(v[0] as string) !== undefined)
        return [this.cid(v[0] as string)!, ...v.slice(1)];
      return v.map((x) => this.dify(x));
    }
    if (isPlainObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) setOwn(out, k, this.dify(x));
      return out;
    }
    return v;
  }

  bindings(list: unknown): unknown[] {
    return (Array.isArray(list) ? list : []).map((b) =>
      isPlainObject(b) ? [b.variable, this.ref(b.value_selector)] : b,
    );
  }
}
