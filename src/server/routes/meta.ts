import { Hono } from "hono";
import { z } from "zod";
import { analyse, availableAt } from "../../analysis/index.js";
import { parseWeftObject } from "../../dsl/load.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { WeftError } from "../../ir/errors.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { servingDiagnostics } from "../../runtime/serving.js";
import type { JsonSchema, NodeTypeInfo } from "../api-types.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { modelDiagnostics, modelOptions } from "../model-options.js";
import { newNodeConfig } from "../new-node.js";
import { portsOf } from "../ports.js";

let nodeTypesCache: NodeTypeInfo[] | undefined;

/** The node catalogue as JSON, config schemas as JSON Schema (input side), for the inspector's generated forms. */
function nodeTypes(): NodeTypeInfo[] {
  nodeTypesCache ??= nodeCatalogue.all().map((d) => {
    let schema: JsonSchema | null = null;
    try {
      schema = z.toJSONSchema(d.configSchema, { unrepresentable: "any", io: "input" }) as JsonSchema;
    } catch {
      // A schema zod cannot express stays editable as raw JSON in the UI.
    }
    return {
      type: d.type,
      label: d.label,
      category: d.category,
      purpose: d.purpose,
      container: d.container ?? null,
      containerStart: d.containerStart ?? null,
      entry: !!d.entry,
      exit: !!d.exit,
      modes: d.modes ?? null,
      example: d.example ?? null,
      schema,
    };
  });
  return nodeTypesCache;
}

/** A draft from the editor: a parsed workflow, or the schema problems as diagnostics. */
function parseDraft(raw: unknown): { workflow: Workflow } | { diagnostics: Diagnostic[] } {
  try {
    return { workflow: parseWeftObject(raw).workflow };
  } catch (e) {
    if (!(e instanceof WeftError)) throw e;
    const issues = (e.details.issues as Array<{ path: string; message: string }> | undefined) ?? [];
    return {
      diagnostics: issues.length
        ? issues.map((i) => ({
            code: "schema.invalid",
            severity: "error",
            message: `${i.path}: ${i.message}`,
            field: i.path,
          }))
        : [{ code: e.code, severity: "error", message: e.message }],
    };
  }
}

/**
 * GET /api/models: the configured endpoints and model routes (never their keys), the agent's model and the
 * inspector's model options.
 */
function modelsView(deps: ServerDeps) {
  const cfg = deps.llmConfig;
  if (!cfg)
    return {
      configured: false,
      default: null,
      endpoints: [],
      models: [],
      agent: null,
      options: [],
      defaultModel: null,
    };
  return {
    configured: Object.keys(cfg.endpoints).length > 0,
    default: cfg.default ?? null,
    // Keys never leave the server: only where each endpoint is and which model it serves.
    endpoints: Object.entries(cfg.endpoints).map(([name, ep]) => ({
      name,
      provider: ep.provider,
      baseURL: ep.baseURL ?? null,
      model: ep.model ?? null,
      defaultModel: ep.defaultModel ?? null,
    })),
    models: Object.entries(cfg.models).map(([name, route]) => ({ name, ...(route as object) })),
    providers: cfg.providers,
    agent: deps.agentLlm ? deps.agentModel : null,
    // The inspector's model select: provider + name as a node writes them, and what a new node gets.
    options: modelOptions(cfg),
    defaultModel: deps.nodeModel ?? null,
  };
}

/** The node palette: the node types with their config schemas, and a new node's config fitted to the app. */
function nodeRoutes(r: Hono, deps: ServerDeps): void {
  // The palette's new node, fitted to the app: its start node's first variable, the configured default model.
  r.post("/node-template", async (c) => {
    const body = await readJson(c);
    if (typeof body.type !== "string" || !body.type)
      throw new ApiError(400, "request.missing_type", "the body needs `type`, a node type (GET /api/node-types)");
    const draft = parseDraft(body.workflow);
    if ("diagnostics" in draft)
      throw new ApiError(
        422,
        "workflow.invalid",
        "`workflow` is not a workflow; the template is fitted to the app's workflow",
        draft.diagnostics,
      );
    return c.json({ config: newNodeConfig(body.type, draft.workflow, deps.nodeModel) });
  });

  r.get("/node-types", (c) => c.json({ nodeTypes: nodeTypes() }));
}

/** The editor's checks of an unsaved draft: its diagnostics, and what one node of it can read. */
function analyseRoutes(r: Hono, deps: ServerDeps): void {
  // Live validation for the editor: diagnostics for an unsaved draft, nothing stored.
  r.post("/analyse", async (c) => {
    const draft = parseDraft((await readJson(c)).workflow);
    if ("diagnostics" in draft) return c.json({ diagnostics: draft.diagnostics });
    const res = analyse(draft.workflow, nodeCatalogue);
    // What nothing serves here (tools, knowledge bases) shows on the node before anyone runs it.
    const serving = await servingDiagnostics(draft.workflow, deps.services);
    const models = modelDiagnostics(draft.workflow, modelOptions(deps.llmConfig));
    return c.json({
      diagnostics: [...res.diagnostics, ...serving, ...models],
      burden: res.burden,
      ports: portsOf(draft.workflow),
    });
  });

  // The inspector's variable picker: exactly the values the analyser finds available at one node of a draft.
  r.post("/analyse/available", async (c) => {
    const body = await readJson(c);
    if (typeof body.nodeId !== "string" || body.nodeId === "")
      throw new ApiError(
        400,
        "request.missing_node_id",
        "the body needs `nodeId`, the node whose readable values you want",
      );
    const draft = parseDraft(body.workflow);
    if ("diagnostics" in draft)
      throw new ApiError(422, "workflow.invalid", "the draft does not parse as a workflow", draft.diagnostics);
    const available = availableAt(draft.workflow, nodeCatalogue, body.nodeId);
    if (!available) throw new ApiError(404, "node.not_found", `the draft has no node "${body.nodeId}"`);
    return c.json({ nodeId: body.nodeId, available });
  });

  r.all("/analyse", () => {
    throw new ApiError(405, "request.method_not_allowed", "use POST /api/analyse");
  });
}

/** What the studio reads besides apps: the models, the node palette, and checks of an unsaved draft. */
export function metaRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.get("/models", (c) => c.json(modelsView(deps)));
  nodeRoutes(r, deps);
  analyseRoutes(r, deps);
  return r;
}
