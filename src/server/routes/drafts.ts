import { Hono } from "hono";
import { runGate } from "../../analysis/runnable.js";
import { publishThroughGate } from "../../apptests/gate.js";
import { syncAppTriggers } from "../../triggers/sync.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { DraftStaleError, getDraft, publishDraft, publishVersion, saveDraft } from "../drafts.js";
import { envDiagnostics } from "../env-import.js";
import { ApiError } from "../errors.js";
import { appTestsFor, asApiError } from "./app-tests.js";
import { diagnosticsOf } from "./runs.js";
import { versionParam, versionSummary } from "./versions.js";

/** `override_tests: {reason}`: publish although the required tests fail (recorded with the reason). */
function overrideOf(v: unknown, by: string): { reason: string; by: string } | undefined {
  if (v === undefined) return undefined;
  const reason = (v as { reason?: unknown } | null)?.reason;
  if (typeof reason !== "string" || reason.trim() === "")
    throw new ApiError(400, "tests.bad_option", 'override_tests must be {reason: "why"} with a non-empty reason');
  return { reason, by };
}

/** The draft (GET/PUT /api/apps/:id/draft), publishing (POST /api/apps/:id/publish) and the versions list. */
export function draftRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const { apps } = deps;

  r.get("/:id/draft", async (c) => {
    const d = await getDraft(apps, c.req.param("id"));
    // Nodes reading a secret with no value say so (and name the command), as the workflow view does.
    return c.json({ ...d, diagnostics: [...d.diagnostics, ...(await envDiagnostics(deps.env, d.appId, d.workflow))] });
  });

  // Autosave: any workflow is kept, errors included; `revision` (the one the editor last saw) refuses a stale save.
  r.put("/:id/draft", async (c) => {
    const body = await readJson(c);
    if (body.revision !== undefined && typeof body.revision !== "number")
      throw new ApiError(400, "draft.invalid_revision", "`revision` must be the draft revision the edit was made on");
    try {
      return c.json(await saveDraft(apps, c.req.param("id"), body.workflow, body.revision as number | undefined));
    } catch (e) {
      if (e instanceof DraftStaleError)
        return c.json({ error: { code: e.code, message: e.message }, draft: e.current }, 409);
      throw e;
    }
  });

  // Without `version` the draft is published; with it, that version (a rollback when older).
  r.post("/:id/publish", async (c) => {
    const body = await readJson(c);
    const id = c.req.param("id");
    const opts = { allowWarnings: body.allow_warnings === true };
    const override = overrideOf(body.override_tests, c.get("principal")?.actorLabel ?? "api");
    const n = body.version === undefined ? undefined : versionParam(String(body.version));
    const { published: p, gate } = await publishThroughGate(
      appTestsFor(deps),
      id,
      n === undefined ? { draft: true } : { version: n },
      () =>
        n === undefined
          ? publishDraft(apps, id, typeof body.note === "string" ? body.note : "", opts)
          : publishVersion(apps, id, n, opts),
      (x) => x.version.version,
      override,
    ).catch((e: unknown) => {
      throw asApiError(e);
    });
    await syncAppTriggers(deps.stores, id);
    c.set("auditDetail", {
      version: p.version.version,
      ...(gate.override ? { override: { reason: gate.override.reason, failing: gate.override.failing } } : {}),
    });
    return c.json({
      app: p.app,
      version: versionSummary(p.version),
      published: p.version.version,
      created: p.created,
      warnings: p.warnings,
      tests: gate,
    });
  });

  r.get("/:id/versions", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const draft = await apps.draft(app.id);
    return c.json({
      published: app.publishedVersion ?? null,
      draft: draft ? { revision: draft.revision, baseVersion: draft.baseVersion, updatedAt: draft.updatedAt } : null,
      versions: (await apps.versions(app.id)).map((v) => ({
        ...versionSummary(v),
        published: v.version === app.publishedVersion,
        // What editors should know about a version served with findings Dify runs anyway.
        findings: runGate(diagnosticsOf(app.id, v.version, v.workflow), { allowWarnings: true }).downgraded,
        draft: v.version === draft?.baseVersion,
      })),
    });
  });
  return r;
}
