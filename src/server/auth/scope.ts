import { DEFAULT_WORKSPACE_ID } from "../../store/teams.js";
import type { ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import type { RouteMatch } from "./match.js";

/**
 * The workspace a route's resource belongs to, from its path (route-table.ts). Another workspace's resource
 * answers the same 404 as a missing one, so ids cannot be probed across workspaces.
 */
export async function checkScope(deps: ServerDeps, m: RouteMatch, workspaceId: string): Promise<void> {
  const id = m.params.id;
  if (id === undefined) return;
  const { teams } = deps.stores;
  if (m.entry.path.startsWith("/api/apps/:id")) {
    if ((await teams.ownerOf("app", id)) !== workspaceId)
      throw new ApiError(404, "app.not_found", `no app with id ${id}`);
  } else if (m.entry.path.startsWith("/api/runs/:id")) {
    const run = await deps.runs.getRun(id);
    const owner = run?.appId === undefined ? undefined : await teams.ownerOf("app", run.appId);
    // Runs of no app (CLI runs of a file) are the default workspace's, as everything before teams.
    if (run && (owner ?? DEFAULT_WORKSPACE_ID) !== workspaceId)
      throw new ApiError(404, "run.not_found", `no run with id ${id}`);
  } else if (m.entry.path.startsWith("/api/knowledge/:id")) {
    if ((await teams.ownerOf("knowledge", id)) !== workspaceId)
      throw new ApiError(404, "kb.not_found", `no knowledge base with id ${id}`);
  }
}
