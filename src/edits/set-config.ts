/** set_config: one config field, or a dotted path into it (`dify.url`); missing objects on the way are made. */
import { z } from "zod";
import { describeValue, isPlainObject, type JsonObject, setOwn } from "../util/json.js";
import { editFail } from "./error.js";
import { nodeOf } from "./graph.js";
import { editKind } from "./kind.js";

function setPath(config: JsonObject, path: string[], value: unknown, fail: (m: string) => never): void {
  let at: JsonObject = config;
  for (const k of path.slice(0, -1)) {
    const next = Object.hasOwn(at, k) ? at[k] : undefined;
    if (next === undefined) setOwn(at, k, {});
    else if (!isPlainObject(next)) fail(`"${k}" is ${describeValue(next)}, not an object`);
    at = at[k] as JsonObject;
  }
  setOwn(at, path.at(-1)!, value);
}

export const setConfig = editKind({
  schema: z.object({ kind: z.literal("set_config"), id: z.string(), field: z.string().min(1), value: z.unknown() }),
  apply(g, e) {
    const n = nodeOf(g, e.id);
    const config = structuredClone(n.config);
    setPath(config, e.field.split("."), e.value, (m) =>
      editFail("edit.not_an_object", `${e.field}: ${m}`, n.id, "field"),
    );
    n.config = config;
  },
  describe: (e) => `set ${e.id}.${e.field}`,
});
