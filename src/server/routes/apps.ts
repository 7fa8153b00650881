import { type Context, Hono } from "hono";
import { analyse } from "../../analysis/index.js";
import { exportDify } from "../../dsl/dify/index.js";
import { diffWorkflows } from "../../ir/diff.js";
import { AppModeSchema } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { servingDiagnostics } from "../../runtime/serving.js";
import { takeSecretValues, withStoredValues } from "../../secrets/app-env.js";
import type { VersionRecord } from "../../store/apps.js";
import { claim, visibleTo } from "../auth/ownership.js";
import { chatHistory } from "../chat-history.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { envDiagnostics, settleImportedSecrets } from "../env-import.js";
import { ApiError } from "../errors.js";
import { portsOf } from "../ports.js";
import { blankWorkflow, validateWorkflow } from "../validate.js";
import { importApp, importVersion } from "./app-import.js";
import { versionParam, versionSummary } from "./versions.js";

/** A version as the studio opens it; what nothing here serves (tools, knowledge bases) is among its diagnostics. */
const versionBody = async (v: VersionRecord, deps: ServerDeps) => ({
  ...versionSummary(v),
  workflow: v.workflow,
  diagnostics: [
    ...analyse(v.workflow, nodeCatalogue).diagnostics,
    ...(await servingDiagnostics(v.workflow, deps.services)),
    ...(await envDiagnostics(deps.env, v.appId, v.workflow)),
  ],
  ports: portsOf(v.workflow),
});

/** POST /api/apps: a new app from `{name, mode, description?, workflow?}`, a blank workflow when none is given. */
async function newApp(deps: ServerDeps, c: Context): Promise<Response> {
  const body = await readJson(c);
  const mode = AppModeSchema.safeParse(body.mode ?? "workflow");
  if (!mode.success)
    throw new ApiError(
      422,
      "app.invalid_mode",
      `mode must be "workflow" or "advanced-chat", got ${JSON.stringify(body.mode)}`,
    );
  const name = typeof body.name === "string" && body.name.trim() ? body.name.trim() : "untitled";
  const given =
    body.workflow !== undefined
      ? validateWorkflow(body.workflow, mode.data, deps.nodeTypes)
      : { workflow: blankWorkflow(name, mode.data), diagnostics: [] };
  const { workflow, secrets } = takeSecretValues(given.workflow);
  workflow.name = name;
  const { app, version } = await deps.apps.createApp(
    { name, mode: mode.data, description: typeof body.description === "string" ? body.description : "" },
    workflow,
    "create",
  );
  await claim(deps, c, "app", app.id);
  const warnings = await settleImportedSecrets(deps.env, app.id, workflow, secrets);
  return c.json({ app, version: versionSummary(version), diagnostics: [...given.diagnostics, ...warnings] }, 201);
}

/** The workspace's apps: list, create, import; one app: read, delete (with everything stored for it). */
function appRecordRoutes(r: Hono, deps: ServerDeps): void {
  const { apps } = deps;

  r.get("/", async (c) => {
    const visible = await visibleTo(deps, c, "app");
    const list = (await apps.listApps()).filter((a) => visible(a.id));
    const versions = await Promise.all(list.map((a) => apps.current(a.id)));
    return c.json({ apps: list.map((a, i) => ({ ...a, version: versions[i]?.version ?? 0 })) });
  });

  r.post("/", (c) => newApp(deps, c));

  r.post("/import", (c) => importApp(deps, c));

  r.get("/:id", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    return c.json({ app, version: versionSummary((await apps.current(app.id))!) });
  });

  r.delete("/:id", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    await apps.deleteApp(app.id);
    await deps.stores.conversations.deleteApp(app.id);
    await deps.env.deleteApp(app.id);
    await deps.stores.triggers.deleteApp(app.id);
    await deps.stores.appTests.deleteApp(app.id);
    return c.json({ deleted: app.id });
  });
}

/** An app's workflow: the current version, a new one, any earlier one and the diff between two. */
function versionRoutes(r: Hono, deps: ServerDeps): void {
  const { apps } = deps;

  r.get("/:id/workflow", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    return c.json(await versionBody((await apps.current(app.id))!, deps));
  });

  r.put("/:id/workflow", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const body = await readJson(c);
    const { workflow, diagnostics } = validateWorkflow(body.workflow, app.mode);
    const v = await apps.addVersion(app.id, workflow, "edit", typeof body.note === "string" ? body.note : "");
    return c.json({ ...versionSummary(v), diagnostics }, 201);
  });

  r.get("/:id/versions/:v", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const v = await apps.version(app.id, versionParam(c.req.param("v")));
    if (!v) throw new ApiError(404, "version.not_found", `app ${app.id} has no version ${c.req.param("v")}`);
    return c.json(await versionBody(v, deps));
  });

  r.get("/:id/versions/:v/diff", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const n = versionParam(c.req.param("v"));
    const v = await apps.version(app.id, n);
    if (!v) throw new ApiError(404, "version.not_found", `app ${app.id} has no version ${n}`);
    const againstRaw = c.req.query("against");
    const against = againstRaw ? versionParam(againstRaw) : n - 1;
    const base = against >= 1 ? await apps.version(app.id, against) : undefined;
    if (againstRaw && !base) throw new ApiError(404, "version.not_found", `app ${app.id} has no version ${against}`);
    return c.json({ version: n, against: base?.version ?? null, diff: diffWorkflows(base?.workflow, v.workflow) });
  });
}

/** An app as Dify YAML: a version imported into it, a version exported. */
function dslRoutes(r: Hono, deps: ServerDeps): void {
  r.post("/:id/import", async (c) => importVersion(deps, c, await requireApp(deps, c.req.param("id"))));

  r.get("/:id/export", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const q = c.req.query("version");
    const v = q ? await deps.apps.version(app.id, versionParam(q)) : await deps.apps.current(app.id);
    if (!v) throw new ApiError(404, "version.not_found", `app ${app.id} has no version ${q}`);
    const file = `${app.name.replace(/[^\w.-]+/g, "_") || "app"}.yml`;
    return c.body(exportDify(await withStoredValues(deps.stores.env, app.id, v.workflow)), 200, {
      "content-type": "text/yaml; charset=utf-8",
      "content-disposition": `attachment; filename="${file}"`,
    });
  });
}

export function appRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  appRecordRoutes(r, deps);
  versionRoutes(r, deps);
  dslRoutes(r, deps);
  r.get("/:id/messages", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    return c.json({ messages: await chatHistory(deps.apps, app.id) });
  });
  return r;
}
