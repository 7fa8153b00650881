import { Hono } from "hono";
import { analyse } from "../../analysis/index.js";
import { AppTestError } from "../../apptests/errors.js";
import { importWithTests } from "../../apptests/import-regression.js";
import { exportDify, importDify } from "../../dsl/dify/index.js";
import { hasErrors } from "../../ir/diagnostics.js";
import { diffWorkflows } from "../../ir/diff.js";
import { AppModeSchema, type Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { servingDiagnostics } from "../../runtime/serving.js";
import { takeSecretValues, withStoredValues } from "../../secrets/app-env.js";
import type { VersionRecord } from "../../store/apps.js";
import { syncAppTriggers } from "../../triggers/sync.js";
import { claim, visibleTo } from "../auth/ownership.js";
import { chatHistory } from "../chat-history.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { envDiagnostics, settleImportedSecrets } from "../env-import.js";
import { ApiError } from "../errors.js";
import { portsOf } from "../ports.js";
import { blankWorkflow, validateWorkflow } from "../validate.js";
import { appTestsFor } from "./app-tests.js";
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

/**
 * An imported app's diagnostics: the analyser's, and the knowledge bases it names that this server does not
 * serve (the canvas's `knowledge.unserved` warning, said before the app is opened).
 */
async function importDiagnostics(workflow: Workflow, deps: ServerDeps) {
  const unserved = (await servingDiagnostics(workflow, deps.services)).filter((d) => d.code === "knowledge.unserved");
  return [...analyse(workflow, nodeCatalogue).diagnostics, ...unserved];
}

/** Equal once written as Dify YAML; a workflow that cannot be exported is taken as different (a version is recorded). */
function sameAsExported(a: Workflow, b: Workflow): boolean {
  try {
    return exportDify(a) === exportDify(b);
  } catch {
    return false;
  }
}

/** The import body: the DSL as it is, or JSON {dsl, tests?} with the app's test side file beside it. */
async function importBody(type: string | undefined, text: string): Promise<{ dsl: string; tests?: string }> {
  if (!type?.includes("application/json")) return { dsl: text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(
      400,
      "request.invalid_json",
      "the body is not valid JSON; send {dsl, tests?} or the DSL as text",
    );
  }
  const b = body as { dsl?: unknown; tests?: unknown };
  if (typeof b.dsl !== "string")
    throw new ApiError(400, "request.missing_dsl", "a JSON import body needs `dsl`: the Dify YAML as a string");
  if (b.tests !== undefined && typeof b.tests !== "string")
    throw new ApiError(400, "request.invalid_tests", "`tests` must be the test side file's text (weft tests export)");
  return { dsl: b.dsl, ...(b.tests !== undefined ? { tests: b.tests } : {}) };
}

/** The side file's cases added and run on the imported version; a file or case the tests cannot take is said. */
async function importedTests(deps: ServerDeps, appId: string, sideFile: string) {
  if (!deps.services.files)
    return {
      error: { code: "files.not_configured", message: "the server has no file store for the test file's files" },
    };
  try {
    const { report: _r, ...summary } = await importWithTests(
      appTestsFor(deps),
      appId,
      sideFile,
      "the import's test file",
      deps.services.files,
    );
    return { ...summary, cases: _r.cases.map((x) => ({ id: x.id, name: x.name, pass: x.pass, failure: x.failure })) };
  } catch (e) {
    if (!(e instanceof AppTestError)) throw e;
    return { error: { code: e.code, message: e.message } };
  }
}

/** Dify DSL import: YAML parse and schema problems are the caller's (422 with the import error's code). */
function importYaml(text: string): {
  workflow: Workflow;
  warnings: unknown[];
  secrets: Array<{ name: string; value: string }>;
} {
  if (text.trim() === "") throw new ApiError(400, "request.empty_body", "send the Dify YAML as the request body");
  const r = importDify(text);
  // A secret's clear text never lands in a version: it is sealed into the app's env store once the app exists.
  const { workflow, secrets } = takeSecretValues(r.workflow);
  return { workflow, warnings: r.warnings, secrets };
}

export function appRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const { apps } = deps;

  r.get("/", async (c) => {
    const visible = await visibleTo(deps, c, "app");
    const list = (await apps.listApps()).filter((a) => visible(a.id));
    const versions = await Promise.all(list.map((a) => apps.current(a.id)));
    return c.json({ apps: list.map((a, i) => ({ ...a, version: versions[i]?.version ?? 0 })) });
  });

  r.post("/", async (c) => {
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
    const { app, version } = await apps.createApp(
      { name, mode: mode.data, description: typeof body.description === "string" ? body.description : "" },
      workflow,
      "create",
    );
    await claim(deps, c, "app", app.id);
    const warnings = await settleImportedSecrets(deps.env, app.id, workflow, secrets);
    return c.json({ app, version: versionSummary(version), diagnostics: [...given.diagnostics, ...warnings] }, 201);
  });

  // As a Dify import of a published app: published at once when clean, else a draft to fix first.
  // A JSON body {dsl, tests} brings the app's test side file along: its cases are added and run (issue 34).
  r.post("/import", async (c) => {
    const { dsl, tests: sideFile } = await importBody(c.req.header("content-type"), await c.req.text());
    const { workflow, warnings, secrets } = importYaml(dsl);
    const diagnostics = await importDiagnostics(workflow, deps);
    const { app, version } = await apps.createApp(
      { name: workflow.name, mode: workflow.mode, description: workflow.description },
      workflow,
      "import",
      { publish: !hasErrors(diagnostics) },
    );
    await claim(deps, c, "app", app.id);
    const envWarnings = await settleImportedSecrets(deps.env, app.id, workflow, secrets);
    await syncAppTriggers(deps.stores, app.id);
    const tests = sideFile === undefined ? undefined : await importedTests(deps, app.id, sideFile);
    return c.json(
      {
        app,
        version: versionSummary(version),
        warnings: [...warnings, ...envWarnings],
        diagnostics,
        ...(tests ? { tests } : {}),
      },
      201,
    );
  });

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

  r.post("/:id/import", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const { workflow, warnings, secrets } = importYaml(await c.req.text());
    if (workflow.mode !== app.mode)
      throw new ApiError(422, "workflow.mode_mismatch", `this app is a ${app.mode} app; the YAML is ${workflow.mode}`);
    // Our own export imported back is no change, though the file spells out what the store leaves implicit
    // (canvas widget types, positions): compared as exported, it records no version.
    const current = await apps.current(app.id);
    const unchanged = !!current && sameAsExported(current.workflow, workflow);
    const v = unchanged ? current : await apps.addVersion(app.id, workflow, "import");
    const envWarnings = await settleImportedSecrets(deps.env, app.id, workflow, secrets);
    return c.json(
      {
        ...versionSummary(v),
        unchanged,
        warnings: [...warnings, ...envWarnings],
        diagnostics: await importDiagnostics(workflow, deps),
      },
      unchanged ? 200 : 201,
    );
  });

  r.get("/:id/export", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const q = c.req.query("version");
    const v = q ? await apps.version(app.id, versionParam(q)) : await apps.current(app.id);
    if (!v) throw new ApiError(404, "version.not_found", `app ${app.id} has no version ${q}`);
    const file = `${app.name.replace(/[^\w.-]+/g, "_") || "app"}.yml`;
    return c.body(exportDify(await withStoredValues(deps.stores.env, app.id, v.workflow)), 200, {
      "content-type": "text/yaml; charset=utf-8",
      "content-disposition": `attachment; filename="${file}"`,
    });
  });

  r.get("/:id/messages", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    return c.json({ messages: await chatHistory(apps, app.id) });
  });

  return r;
}
