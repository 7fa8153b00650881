import type { Context } from "hono";
import type { NewAuditEntry } from "../../store/audit.js";
import type { ServerDeps } from "../context.js";
import type { RouteMatch } from "./match.js";
import type { Principal } from "./principal.js";

declare module "hono" {
  interface ContextVariableMap {
    /** Facts a route adds to its audit entry (never a secret): an override's reason, a new member's role. */
    auditDetail: Record<string, unknown>;
  }
}

// Reading is not audited; neither are requests that only compute (analysis, templates, searches).
const READ_NEEDS = new Set(["app.read", "knowledge.read", "public"]);
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether a matched route changes something worth an audit entry. */
export const audited = (method: string, m: RouteMatch) => !SAFE.has(method) && !READ_NEEDS.has(m.entry.need);

/** `app:ID`, `run:ID`… from the route's parameters (`:id` names the path's resource, others follow). */
export function targetOf(m: RouteMatch): string | undefined {
  const resource = m.entry.path.split("/")[2] ?? "";
  const kind =
    {
      apps: "app",
      runs: "run",
      knowledge: "knowledge",
      triggers: "trigger",
      members: "user",
      keys: "key",
      invites: "invite",
    }[resource] ?? resource;
  const parts = Object.entries(m.params).map(([k, v]) => (k === "id" ? `${kind}:${v}` : `${k}:${v}`));
  return parts.length ? parts.join(" ") : undefined;
}

/**
 * The audit entry of a request the guard let through and the route answered with success: the route table's
 * line is the action (`POST /api/apps/:id/publish`), the principal the actor (a user's email or a key's name,
 * never the key).
 */
export function auditEntryOf(c: Context, who: Principal, m: RouteMatch): NewAuditEntry {
  const detail = c.get("auditDetail");
  const target = targetOf(m);
  return {
    workspaceId: who.workspaceId,
    actorKind: who.kind,
    actorId: who.actorId,
    actorLabel: who.actorLabel,
    action: `${m.entry.method} ${m.entry.path}`,
    ...(target ? { target } : {}),
    ...(detail ? { detail } : {}),
  };
}

/** Records the entry; a store failure is logged, not turned into a failed answer for work already done. */
export async function recordAudit(deps: ServerDeps, e: NewAuditEntry): Promise<void> {
  try {
    await deps.stores.audit.record(e);
  } catch (err) {
    process.stderr.write(`weft server: recording the audit entry for ${e.action} failed: ${(err as Error).message}\n`);
  }
}
