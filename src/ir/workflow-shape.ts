/**
 * WorkflowShapeSchema (workflow.ts) written out as plain checks, for a workflow an importer built itself: true only
 * when the schema accepts the value (test/ir/workflow-shape.test.ts holds the two together, field by field). An
 * importer builds its output to this shape, so the answer is almost always yes, and zod's parse of a whole
 * workflow — a parsed copy of every node and edge, a result per field — cost as much as the rest of a Dify
 * import's conversion. On no, the importer asks the schema itself, whose first issue names the field in the error.
 */

type Rec = Record<string, unknown>;

const isMapping = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const optional = (v: unknown, ok: (x: unknown) => boolean): boolean => v === undefined || ok(v);
const isString = (v: unknown): boolean => typeof v === "string";
/** By index, not `every`, which skips a sparse array's holes (the schema reads them as undefined). */
function everyOf(v: unknown, ok: (x: unknown) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!ok(v[i])) return false;
  return true;
}

function isNode(v: unknown): boolean {
  return (
    isMapping(v) &&
    isText(v.id) &&
    isText(v.type) &&
    optional(v.title, isString) &&
    optional(v.parentId, isText) &&
    isMapping(v.config) &&
    optional(v.canvas, isMapping)
  );
}

function isEdge(v: unknown): boolean {
  return (
    isMapping(v) &&
    optional(v.id, isString) &&
    isText(v.source) &&
    optional(v.sourcePort, isText) &&
    isText(v.target) &&
    optional(v.canvas, isMapping)
  );
}

function isVariable(v: unknown): boolean {
  return (
    isMapping(v) &&
    optional(v.id, isString) &&
    isText(v.name) &&
    isString(v.value_type) &&
    optional(v.description, isString) &&
    optional(v.selector, (s) => everyOf(s, isString))
  );
}

/** True only if WorkflowShapeSchema accepts `v`; false means "ask the schema". */
export function isWorkflowShape(v: unknown): boolean {
  return (
    isMapping(v) &&
    optional(v.weft, (x) => x === 1) &&
    optional(v.name, isString) &&
    optional(v.description, isString) &&
    (v.mode === "workflow" || v.mode === "advanced-chat") &&
    everyOf(v.nodes, isNode) &&
    everyOf(v.edges, isEdge) &&
    optional(v.environment_variables, (x) => everyOf(x, isVariable)) &&
    optional(v.conversation_variables, (x) => everyOf(x, isVariable)) &&
    optional(v.features, isMapping) &&
    optional(v.meta, isMapping)
  );
}
