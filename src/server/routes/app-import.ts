import type { Context } from "hono";
import { analyse } from "../../analysis/index.js";
import { AppTestError } from "../../apptests/errors.js";
import { importWithTests } from "../../apptests/import-regression.js";
import { exportDify, importDify } from "../../dsl/dify/index.js";
import { hasErrors } from "../../ir/diagnostics.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";
import { servingDiagnostics } from "../../runtime/serving.js";
import { takeSecretValues } from "../../secrets/app-env.js";
import type { AppRecord } from "../../store/apps.js";
import { syncAppTriggers } from "../../triggers/sync.js";
import { claim } from "../auth/ownership.js";
import type { ServerDeps } from "../context.js";
import { settleImportedSecrets } from "../env-import.js";
import { ApiError } from "../errors.js";
import { appTestsFor } from "./app-tests.js";
import { versionSummary } from "./versions.js";

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

/**
 * POST /api/apps/import, as a Dify import of a published app: published at once when clean, else a draft to
 * fix first. A JSON body {dsl, tests} brings the app's test side file along: its cases are added and run (issue 34).
 */
export async function importApp(deps: ServerDeps, c: Context): Promise<Response> {
  const { dsl, tests: sideFile } = await importBody(c.req.header("content-type"), await c.req.text());
  const { workflow, warnings, secrets } = importYaml(dsl);
  const diagnostics = await importDiagnostics(workflow, deps);
  const { app, version } = await deps.apps.createApp(
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
}

/** POST /api/apps/:id/import: the YAML as a new version of the app (same mode only). */
export async function importVersion(deps: ServerDeps, c: Context, app: AppRecord): Promise<Response> {
  const { workflow, warnings, secrets } = importYaml(await c.req.text());
  if (workflow.mode !== app.mode)
    throw new ApiError(422, "workflow.mode_mismatch", `this app is a ${app.mode} app; the YAML is ${workflow.mode}`);
  // Our own export imported back is no change, though the file spells out what the store leaves implicit
  // (canvas widget types, positions): compared as exported, it records no version.
  const current = await deps.apps.current(app.id);
  const unchanged = !!current && sameAsExported(current.workflow, workflow);
  const v = unchanged ? current : await deps.apps.addVersion(app.id, workflow, "import");
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
}
