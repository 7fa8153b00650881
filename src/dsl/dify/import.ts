import type { Diagnostic } from "../../ir/diagnostics.js";
import { ImportError } from "../../ir/errors.js";
import {
  type AppMode,
  VariableSchema,
  type Workflow,
  type WorkflowEdge,
  type WorkflowNode,
  WorkflowShapeSchema,
  type WorkflowVariable,
} from "../../ir/workflow.js";
import { isWorkflowShape } from "../../ir/workflow-shape.js";
import { completeForDify } from "./canvas.js";
import { defaultFeatures, defaultViewport } from "./defaults.js";
import type { DifyMeta } from "./meta.js";
import { isEmpty, isRecord, type Json, omit } from "./util.js";
import { ABSENT_DSL_VERSION, CURRENT_DSL_VERSION, judgeVersion, parseDslVersion } from "./version.js";
// The reader alone: the writer loads the `yaml` package, which reading a file (every `weft run`) never needs.
import { readYaml } from "./yaml-read.js";

/** Dify refuses documents over 10 MB. */
export const MAX_DSL_BYTES = 10 * 1024 * 1024;

export interface ImportDifyOptions {
  /** Workflow name when the app block has none (e.g. the file name). */
  nameHint?: string;
  /** The DSL version of the server whose rules to apply; defaults to the newest known. */
  currentVersion?: string;
}

export interface ImportDifyResult {
  workflow: Workflow;
  warnings: Diagnostic[];
}

const TOP_KEYS = ["app", "kind", "version", "workflow", "dependencies"];
const WORKFLOW_KEYS = [
  "graph",
  "features",
  "environment_variables",
  "conversation_variables",
  "rag_pipeline_variables",
];
const GRAPH_KEYS = ["nodes", "edges", "viewport"];
/** What a node's `data` and the node itself hold besides its config and canvas keys. */
const NODE_DATA_KEYS = ["type", "title"];
const NODE_KEYS = ["id", "data"];
const NODE_KEYS_WITH_PARENT = ["id", "data", "parentId"];
const EDGE_KEYS = ["id", "source", "target", "sourceHandle"];
/** Read once: every import without a `currentVersion` compares against it (judgeVersion only reads it). */
const CURRENT_PARSED = parseDslVersion(CURRENT_DSL_VERSION);
const NON_WORKFLOW_MODES = new Set(["chat", "agent-chat", "completion"]);
const WORKFLOW_MODES = new Set<string>(["workflow", "advanced-chat"]);

function fail(code: string, message: string, details: Record<string, unknown> = {}): never {
  throw new ImportError(code, message, details);
}

function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return `a ${typeof v}`;
}

/** Read a Dify app DSL document (YAML) into a Weft workflow. Throws ImportError for what cannot be a workflow. */
export function importDify(text: string, opts: ImportDifyOptions = {}): ImportDifyResult {
  const warnings: Diagnostic[] = [];
  const warn: Warn = (code, message, extra = {}) => {
    warnings.push({ code, severity: "warning", message, ...extra });
  };
  const { doc, mayShare } = readDocument(text, warn);
  const version = readVersion(doc, opts, warn);
  if (doc.kind !== undefined && doc.kind !== "app") {
    warn("dsl.kind_overwritten", `kind ${JSON.stringify(doc.kind)} read as "app", as Dify does`);
  }
  const { app, mode } = readApp(doc);
  const { wfBlock, graph, rawNodes, rawEdges } = readGraph(doc, mode, warn);
  const { nodes, notes } = readNodes(rawNodes, warn);
  const edges = readEdges(rawEdges, warn);

  let features: Json;
  if (isRecord(wfBlock.features)) features = wfBlock.features;
  else {
    if (wfBlock.features !== undefined)
      warn("dsl.features_invalid", `workflow.features is ${describeType(wfBlock.features)}; defaults used`);
    features = defaultFeatures();
  }

  const name = textField(app.name, "app.name", warn) ?? opts.nameHint ?? "untitled";
  const description = textField(app.description, "app.description", warn) ?? "";
  const meta = difyMeta(doc, wfBlock, graph, {
    version,
    kind: "app",
    // name/mode/description as the workflow has them, so an export (which writes the workflow's) reads back equal.
    app: { ...app, name, mode, description },
    viewport: graph.viewport ?? defaultViewport(),
    notes,
  });
  const draft: Workflow = {
    weft: 1,
    name,
    description,
    mode,
    nodes,
    edges,
    environment_variables: readVariables(wfBlock.environment_variables, "environment_variables"),
    conversation_variables: readVariables(wfBlock.conversation_variables, "conversation_variables"),
    features,
    meta: { dify: meta },
  };
  // A tree copy when the YAML's aliases share objects, so they do not become shared mutable state in the IR
  // (structuredClone keeps shared references shared); otherwise the value read is a tree and every object of the
  // draft is the importer's own. readYaml bounded how far aliases expand, and refused recursive ones. Either way
  // the canvas defaults are then set in the draft's own objects, not in copies.
  const workflow = completeForDify(mayShare ? treeCopy(draft) : draft, { owned: true });
  checkShape(workflow);
  return { workflow, warnings };
}

/**
 * The schema's verdict on what the importer built. The plain checks of isWorkflowShape accept only what the schema
 * accepts, so the schema itself (a parse as costly as the rest of the conversion) runs only when they do not, to
 * decide and to name the field.
 */
function checkShape(workflow: Workflow): void {
  if (isWorkflowShape(workflow)) return;
  const check = WorkflowShapeSchema.safeParse(workflow);
  if (!check.success) {
    const issue = check.error.issues[0];
    fail(
      "dsl.invalid_workflow",
      `the imported workflow breaks the IR schema at ${issue?.path.join(".")}: ${issue?.message}`,
    );
  }
}

type Warn = (code: string, message: string, extra?: Partial<Diagnostic>) => void;

/** The text as a YAML mapping (its parser's warnings passed on), or why it is none. */
function readDocument(text: string, warn: Warn): { doc: Json; mayShare: boolean } {
  if (typeof text !== "string") fail("dsl.not_text", `expected the DSL as text, got ${describeType(text)}`);
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit (a surrogate pair 4 for 2), so most texts are known to fit by their
  // length alone, without a pass that counts the bytes.
  if (text.length * 3 > MAX_DSL_BYTES) {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > MAX_DSL_BYTES) {
      fail("dsl.too_large", `the DSL is ${bytes} bytes; Dify accepts at most ${MAX_DSL_BYTES} (10 MB)`, { bytes });
    }
  }
  const parsed = readYaml(text.startsWith("\uFEFF") ? text.slice(1) : text);
  if (!parsed.ok) {
    const { line, col, message } = parsed.error;
    const where = line !== undefined ? ` at line ${line}, column ${col}` : "";
    fail("dsl.not_yaml", `not valid YAML${where}: ${message}`, { line, col });
  }
  for (const w of parsed.warnings) warn("dsl.yaml_warning", w.line ? `line ${w.line}: ${w.message}` : w.message);
  const doc = parsed.value;
  if (!isRecord(doc)) {
    fail(
      "dsl.not_mapping",
      doc === null || doc === undefined
        ? "the document is empty"
        : `the document must be a YAML mapping (app, kind, version, workflow), got ${describeType(doc)}`,
    );
  }
  return { doc, mayShare: parsed.mayShare };
}

/** The app block, and its mode, which must be one of the two Dify modes that have a workflow graph. */
function readApp(doc: Json): { app: Json; mode: AppMode } {
  const app = doc.app;
  if (!isRecord(app)) {
    fail(
      "dsl.missing_app",
      app === undefined ? "missing the app block" : `app must be a mapping, got ${describeType(app)}`,
    );
  }
  const mode = app.mode;
  if (mode === undefined || mode === null || mode === "") fail("dsl.missing_mode", "app.mode is missing");
  if (typeof mode === "string" && NON_WORKFLOW_MODES.has(mode)) {
    fail(
      "dsl.not_workflow_app",
      `${mode} apps have no workflow graph: only workflow and advanced-chat (chatflow) apps can be imported`,
      { mode },
    );
  }
  if (typeof mode !== "string" || !WORKFLOW_MODES.has(mode)) {
    fail("dsl.bad_mode", `app.mode ${JSON.stringify(mode)} is not a Dify app mode (workflow, advanced-chat)`, { mode });
  }
  return { app, mode: mode as AppMode };
}

/** The workflow block and its graph; nodes must be a list, missing edges are read as none. */
function readGraph(
  doc: Json,
  mode: AppMode,
  warn: Warn,
): { wfBlock: Json; graph: Json; rawNodes: unknown[]; rawEdges: unknown[] } {
  const wfBlock = doc.workflow;
  if (!isRecord(wfBlock)) {
    fail(
      "dsl.missing_workflow",
      wfBlock === undefined
        ? `missing the workflow block, which ${mode} apps must have`
        : `workflow must be a mapping, got ${describeType(wfBlock)}`,
    );
  }
  const graph = wfBlock.graph;
  if (!isRecord(graph)) {
    fail(
      "dsl.missing_graph",
      graph === undefined ? "missing workflow.graph" : `workflow.graph must be a mapping, got ${describeType(graph)}`,
    );
  }
  if (!Array.isArray(graph.nodes)) {
    fail(
      "dsl.bad_nodes",
      graph.nodes === undefined
        ? "workflow.graph.nodes is missing"
        : `workflow.graph.nodes must be a list, got ${describeType(graph.nodes)}`,
    );
  }
  let rawEdges: unknown[] = [];
  if (Array.isArray(graph.edges)) rawEdges = graph.edges;
  else if (graph.edges === undefined || graph.edges === null)
    warn("dsl.edges_missing", "workflow.graph.edges is missing; read as no edges");
  else fail("dsl.bad_edges", `workflow.graph.edges must be a list, got ${describeType(graph.edges)}`);
  return { wfBlock, graph, rawNodes: graph.nodes, rawEdges };
}

/** What the IR does not hold but a Dify export writes back: the meta read, plus every key Weft does not know. */
function difyMeta(doc: Json, wfBlock: Json, graph: Json, meta: DifyMeta): DifyMeta {
  if (doc.dependencies !== undefined) meta.dependencies = doc.dependencies;
  if (wfBlock.rag_pipeline_variables !== undefined) meta.rag_pipeline_variables = wfBlock.rag_pipeline_variables;
  const extra = omit(doc, TOP_KEYS);
  if (Object.keys(extra).length > 0) meta.extra = extra;
  const workflowExtra = omit(wfBlock, WORKFLOW_KEYS);
  if (Object.keys(workflowExtra).length > 0) meta.workflowExtra = workflowExtra;
  const graphExtra = omit(graph, GRAPH_KEYS);
  if (Object.keys(graphExtra).length > 0) meta.graphExtra = graphExtra;
  return meta;
}

/** A deep copy in which every place holds its own objects (arrays and plain objects; other values as they are). */
function treeCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(treeCopy) as T;
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, treeCopy(x)])) as T;
  }
  return v;
}

function readVersion(doc: Json, opts: ImportDifyOptions, warn: Warn): string {
  const v = Object.hasOwn(doc, "version") ? doc.version : ABSENT_DSL_VERSION;
  if (typeof v !== "string") {
    fail(
      "dsl.bad_version_type",
      `version must be a string such as "0.4.0", got ${describeType(v)}${typeof v === "number" ? ` (${v}; quote it)` : ""}; Dify rejects this too`,
      { version: v },
    );
  }
  const parsed = parseDslVersion(v);
  if (!parsed) fail("dsl.bad_version", `version ${JSON.stringify(v)} is not a valid version number`, { version: v });
  const currentText = opts.currentVersion ?? CURRENT_DSL_VERSION;
  const current = currentText === CURRENT_DSL_VERSION ? CURRENT_PARSED : parseDslVersion(currentText);
  if (!current) fail("dsl.bad_version", `currentVersion ${JSON.stringify(currentText)} is not a valid version number`);
  switch (judgeVersion(parsed, current)) {
    case "newer-major":
      fail(
        "dsl.version_unsupported",
        `DSL version ${v} is a newer major version than ${currentText}, which Weft reads`,
        {
          version: v,
        },
      );
      break;
    case "newer":
      warn(
        "dsl.version_newer",
        `DSL version ${v} is newer than ${currentText}; Dify would ask for confirmation. Imported as is`,
      );
      break;
    case "older-major":
      warn(
        "dsl.version_older_major",
        `DSL version ${v} is an older major version than ${currentText}; Dify would ask for confirmation`,
      );
      break;
    case "older-minor":
      warn("dsl.version_older", `DSL version ${v} is older than ${currentText}; Dify imports it with warnings`);
      break;
    case "same":
      break;
  }
  return v;
}

function textField(v: unknown, field: string, warn: Warn): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  warn("dsl.field_coerced", `${field} is ${describeType(v)}; read as text`, { field });
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** A string id, or a number written without quotes (read as its text). */
function idOf(v: unknown): string | undefined {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

function readNodes(raw: unknown[], warn: Warn): { nodes: WorkflowNode[]; notes: unknown[] } {
  const nodes: WorkflowNode[] = [];
  const notes: unknown[] = [];
  const seen = new Set<string>();
  raw.forEach((n, index) => {
    if (!isRecord(n)) fail("dsl.bad_node", `node #${index + 1} must be a mapping, got ${describeType(n)}`, { index });
    if (n.type === "custom-note") {
      notes.push(n);
      return;
    }
    const id = idOf(n.id);
    if (id === undefined) {
      fail(
        "dsl.node_missing_id",
        `node #${index + 1} has no id${n.id === undefined ? "" : ` (got ${describeType(n.id)})`}`,
        {
          index,
        },
      );
    }
    if (typeof n.id !== "string")
      warn("dsl.node_id_coerced", `node id ${id} is a number; read as the string "${id}"`, { nodeId: id });
    const data = n.data;
    if (!isRecord(data)) {
      fail("dsl.node_missing_type", `node ${id} has no data block (data.type names the node type)`, {
        nodeId: id,
        index,
      });
    }
    if (typeof data.type !== "string" || data.type === "") {
      fail("dsl.node_missing_type", `node ${id} has no data.type`, { nodeId: id, index });
    }
    if (seen.has(id)) {
      warn("dsl.duplicate_node_id", `node id ${id} is used by more than one node; references to it are ambiguous`, {
        nodeId: id,
      });
    }
    seen.add(id);
    let title = "";
    if (typeof data.title === "string") title = data.title;
    else if (data.title !== undefined && data.title !== null) {
      title = String(data.title);
      warn("dsl.field_coerced", `node ${id}: data.title is ${describeType(data.title)}; read as text`, {
        nodeId: id,
        field: "title",
      });
    }
    const node: WorkflowNode = { id, type: data.type, title, config: omit(data, NODE_DATA_KEYS) };
    const parentId = idOf(n.parentId);
    if (parentId !== undefined) node.parentId = parentId;
    else if (n.parentId !== undefined && n.parentId !== null) {
      warn("dsl.parent_invalid", `node ${id}: parentId is ${describeType(n.parentId)}; kept on the canvas only`, {
        nodeId: id,
      });
    }
    const canvas = omit(n, parentId !== undefined ? NODE_KEYS_WITH_PARENT : NODE_KEYS);
    if (!isEmpty(canvas)) node.canvas = canvas;
    nodes.push(node);
  });
  return { nodes, notes };
}

function readEdges(raw: unknown[], warn: Warn): WorkflowEdge[] {
  const edges: WorkflowEdge[] = [];
  raw.forEach((e, index) => {
    const label = `edge #${index + 1}`;
    if (!isRecord(e)) {
      warn("dsl.edge_dropped", `${label} is ${describeType(e)}, not a mapping; dropped`);
      return;
    }
    const source = idOf(e.source);
    const target = idOf(e.target);
    if (source === undefined || target === undefined) {
      // Dify's engine ignores such edges too.
      warn("dsl.edge_dropped", `${label} has no ${source === undefined ? "source" : "target"}; dropped`, {
        edgeId: typeof e.id === "string" ? e.id : undefined,
      });
      return;
    }
    let sourcePort = "source";
    const h = e.sourceHandle;
    if (typeof h === "string" && h !== "") sourcePort = h;
    else if (typeof h === "number" || typeof h === "boolean") {
      sourcePort = String(h);
      warn("dsl.edge_field_coerced", `${label}: sourceHandle ${h} is not quoted; read as "${sourcePort}"`);
    } else if (h !== undefined && h !== null && h !== "") {
      warn("dsl.edge_field_coerced", `${label}: sourceHandle is ${describeType(h)}; read as "source"`);
    }
    const edge: WorkflowEdge = { source, sourcePort, target };
    const id = idOf(e.id);
    if (id !== undefined) edge.id = id;
    else if (e.id !== undefined && e.id !== null)
      warn("dsl.edge_field_coerced", `${label}: id is ${describeType(e.id)}; a new id is used`);
    const canvas = omit(e, EDGE_KEYS);
    if (!isEmpty(canvas)) edge.canvas = canvas;
    edges.push(edge);
  });
  return edges;
}

function readVariables(raw: unknown, field: string): WorkflowVariable[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    fail("dsl.bad_variables", `workflow.${field} must be a list, got ${describeType(raw)}`, { field });
  return raw.map((v, index) => {
    const r = VariableSchema.safeParse(v);
    if (!r.success) {
      const issue = r.error.issues[0];
      const name = isRecord(v) && typeof v.name === "string" ? ` (${v.name})` : "";
      const path = issue?.path.length ? issue.path.join(".") : "";
      fail(
        "dsl.bad_variable",
        `workflow.${field}[${index}]${name}${path ? ` field ${path}` : ""}: ${issue?.message ?? "invalid"}`,
        { field: `${field}[${index}]${path ? `.${path}` : ""}` },
      );
    }
    return v as WorkflowVariable;
  });
}
