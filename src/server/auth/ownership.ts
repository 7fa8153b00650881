import type { Context } from "hono";
import { DEFAULT_WORKSPACE_ID, type ResourceKind } from "../../store/teams.js";
import type { ServerDeps } from "../context.js";

/** The workspace the request acts in (set by the guard; routes outside `/api` act in the default one). */
export const workspaceOf = (c: Context): string => c.get("principal")?.workspaceId ?? DEFAULT_WORKSPACE_ID;

/** Which ids of `kind` the request's workspace may see: its owner rows, and for default every id without one. */
export async function visibleTo(deps: ServerDeps, c: Context, kind: ResourceKind): Promise<(id: string) => boolean> {
  const ws = workspaceOf(c);
  const owners = await deps.stores.teams.owners(kind);
  return (id) => (owners.get(id) ?? DEFAULT_WORKSPACE_ID) === ws;
}

/** A resource made by this request belongs to its workspace. */
export const claim = (deps: ServerDeps, c: Context, kind: ResourceKind, id: string) =>
  deps.stores.teams.assign(kind, id, workspaceOf(c));
