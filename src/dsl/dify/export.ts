import { SchemaError, WeftError } from "../../ir/errors.js";
import { type Workflow, WorkflowSchema } from "../../ir/workflow.js";
import { completeForDify } from "./canvas.js";
import { defaultAppExtras, defaultFeatures, defaultViewport, versionNeededBy } from "./defaults.js";
import { difyMetaOf } from "./meta.js";
import { isRecord, type Json, omit } from "./util.js";
import { parseDslVersion } from "./version.js";
import { writeYaml } from "./yaml.js";

export interface ExportDifyOptions {
  /**
   * DSL version to write; by default the version of what we write: the current one (or newer where a node type
   * needs it), also for a file imported at an older version — the document is written in today's form, and
   * re-importing our own export must not warn that it is older (issue 36 item 7).
   */
  version?: string;
}

/** The Dify document (as plain data) for a workflow. */
export function toDifyDocument(input: Workflow, opts: ExportDifyOptions = {}): Json {
  const check = WorkflowSchema.safeParse(input);
  if (!check.success) {
    const issues = check.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new SchemaError(
      "dsl.export_invalid_workflow",
      `cannot export: the workflow breaks the schema (${issues
        .slice(0, 3)
        .map((i) => `${i.path || "(root)"}: ${i.message}`)
        .join("; ")})`,
      { issues },
    );
  }
  const wf = completeForDify(input);
  const meta = difyMetaOf(wf) ?? {};
  const version = opts.version ?? versionNeededBy(wf.nodes.map((n) => n.type));
  if (!parseDslVersion(version)) {
    throw new WeftError(
      "dsl.export_bad_version",
      `cannot export with DSL version ${JSON.stringify(version)}: not a version number`,
    );
  }

  const app: Json = {
    ...(isRecord(meta.app) ? meta.app : defaultAppExtras()),
    name: wf.name,
    mode: wf.mode,
    description: wf.description,
  };
  const nodes: unknown[] = wf.nodes.map((n) => ({
    ...omit(n.canvas ?? {}, ["id", "data"]),
    id: n.id,
    data: { ...n.config, type: n.type, title: n.title },
    ...(n.parentId !== undefined ? { parentId: n.parentId } : {}),
  }));
  if (Array.isArray(meta.notes)) nodes.push(...meta.notes);
  const edges = wf.edges.map((e) => ({
    ...omit(e.canvas ?? {}, ["source", "target", "sourceHandle"]),
    id: e.id,
    source: e.source,
    sourceHandle: e.sourcePort,
    target: e.target,
  }));

  const graph: Json = {
    ...(isRecord(meta.graphExtra) ? meta.graphExtra : {}),
    edges,
    nodes,
    viewport: meta.viewport ?? defaultViewport(),
  };
  const workflow: Json = {
    ...(isRecord(meta.workflowExtra) ? meta.workflowExtra : {}),
    conversation_variables: wf.conversation_variables ?? [],
    // As Dify exports them: a secret's value is blank, whatever the workflow held. A secret that had no value key
    // gets none: adding one would change the file on a round trip.
    environment_variables: (wf.environment_variables ?? []).map((v) =>
      v.value_type === "secret" && "value" in v ? { ...v, value: "" } : v,
    ),
    features: wf.features ?? defaultFeatures(),
    graph,
    ...(meta.rag_pipeline_variables !== undefined ? { rag_pipeline_variables: meta.rag_pipeline_variables } : {}),
  };
  return {
    ...(isRecord(meta.extra) ? meta.extra : {}),
    app,
    ...(meta.dependencies !== undefined ? { dependencies: meta.dependencies } : {}),
    kind: "app",
    version,
    workflow,
  };
}

/** Dify DSL YAML for a workflow, ready for Dify's "Import DSL". */
export function exportDify(wf: Workflow, opts: ExportDifyOptions = {}): string {
  const doc = toDifyDocument(wf, opts);
  try {
    return writeYaml(doc);
  } catch (err) {
    // Only pathological values get here (nesting deep enough to exhaust the stack).
    throw new WeftError("dsl.export_failed", `cannot write the workflow as YAML: ${(err as Error).message}`);
  }
}
