import { Hono } from "hono";
import { applyOps } from "../../authoring/edit/ops.js";
import { readEdit, viewOf } from "../../authoring/edit/read.js";
import { NOTHING_CHANGED } from "../../authoring/outcome.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import type { Workflow } from "../../ir/workflow.js";
import type { DraftRecord, ProposalStatus } from "../../store/apps.js";
import { readJson, requireApp, type ServerDeps } from "../context.js";
import { draftView } from "../drafts.js";
import { ApiError } from "../errors.js";
import { proposalView, undoView, viewProposal } from "../proposal-view.js";
import { parseWorkflowBody } from "../validate.js";
import { versionParam } from "./versions.js";

const STATUSES: ProposalStatus[] = ["pending", "applied", "rejected", "superseded"];

const unreadable = (diagnostics: Diagnostic[]) =>
  new ApiError(
    422,
    "proposal.unreadable",
    `the proposal cannot be read (${diagnostics.filter((d) => d.severity === "error").length} error(s)); ${NOTHING_CHANGED}`,
    diagnostics,
  );

/** The proposed workflow from a body with exactly one of `workflow` (Weft JSON), `compact` or `edits`. */
function proposedWorkflow(deps: ServerDeps, body: Record<string, unknown>, base: DraftRecord, mode: string): Workflow {
  const given = (["workflow", "compact", "edits"] as const).filter((k) => body[k] !== undefined);
  if (given.length !== 1)
    throw new ApiError(
      400,
      "request.proposal_body",
      "send exactly one of `workflow` (Weft JSON), `compact` (compact JSON read against the draft) or `edits` (edit operations on it)",
    );
  if (given[0] === "workflow") {
    const wf = parseWorkflowBody(body.workflow);
    if (wf.mode !== mode)
      throw new ApiError(422, "workflow.mode_mismatch", `this app is a ${mode} app; the workflow is ${wf.mode}`);
    return wf;
  }
  const view = viewOf(base.workflow);
  let compact = body.compact;
  if (given[0] === "edits") {
    const ops = applyOps(view.projection.compact, body.edits);
    if (!ops.compact) throw unreadable(ops.diagnostics);
    compact = ops.compact;
  }
  const reading = readEdit(view, compact, deps.nodeModel ? { llmModel: deps.nodeModel } : {});
  if (!reading.workflow || reading.diagnostics.some((d) => d.severity === "error"))
    throw unreadable(reading.diagnostics);
  return reading.workflow;
}

/** Proposal review: create, list, see, apply to the draft, reject; undo and restore (each writes the draft). */
export function proposalRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const { apps, editing } = deps;

  r.get("/:id/proposals", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const status = c.req.query("status");
    if (status !== undefined && !STATUSES.includes(status as ProposalStatus))
      throw new ApiError(400, "request.invalid_status", `status must be one of ${STATUSES.join(", ")}`);
    const draft = await editing.draft(app.id);
    const list = await apps.proposals(app.id, status as ProposalStatus | undefined);
    return c.json({ proposals: await Promise.all(list.map((p) => viewProposal(editing, p, draft, false))) });
  });

  r.post("/:id/proposals", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const body = await readJson(c);
    const base = await editing.draft(app.id);
    const wf = proposedWorkflow(deps, body, base, app.mode);
    const instruction = typeof body.instruction === "string" ? body.instruction : "";
    const p = await editing.propose(app.id, base, wf, {
      source: typeof body.source === "string" && body.source ? body.source.slice(0, 40) : "api",
      instruction,
    });
    return c.json(proposalView(p, base), 201);
  });

  r.get("/:id/proposals/:pid", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const p = await apps.proposal(app.id, c.req.param("pid"));
    if (!p) throw new ApiError(404, "proposal.not_found", `app ${app.id} has no proposal ${c.req.param("pid")}`);
    return c.json(await viewProposal(editing, p, await editing.draft(app.id)));
  });

  // Applying writes the draft, not a version: what end users run changes only with a publish.
  r.post("/:id/proposals/:pid/apply", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const { proposal, draft } = await editing.apply(app.id, c.req.param("pid"));
    return c.json({ draft: await draftView(apps, draft), proposal: proposalView(proposal, draft, false) });
  });

  r.post("/:id/proposals/:pid/reject", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const p = await editing.reject(app.id, c.req.param("pid"));
    const draft = await editing.draft(app.id);
    return c.json({ proposal: proposalView(p, draft, false), revision: draft.revision, note: NOTHING_CHANGED });
  });

  // Whether Undo would take the last applied proposal out now (judged by content, so a no-op save keeps it).
  r.get("/:id/undo", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    return c.json(undoView(await editing.undoState(app.id)));
  });

  r.post("/:id/undo", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const { draft, undone } = await editing.undo(app.id);
    return c.json({ draft: await draftView(apps, draft), undone: proposalView(undone, draft, false) });
  });

  r.post("/:id/versions/:v/restore", async (c) => {
    const app = await requireApp(deps, c.req.param("id"));
    const v = versionParam(c.req.param("v"));
    const draft = await editing.restore(app.id, v);
    return c.json({ draft: await draftView(apps, draft), restored: v });
  });

  return r;
}
