import type { Permission } from "./permissions.js";

/**
 * Every `/api` route and the permission it needs: one line per route. The guard (guard.ts) refuses a route
 * missing here (404, as if it did not exist), and test/server/route-table.test.ts names each registered
 * route without a line. `public` routes need no credentials.
 *
 * Resources are scoped by path: `/api/apps/:id…` is the app's workspace, `/api/runs/:id…` the run's app's,
 * `/api/knowledge/:id…` the base's (see scope.ts); another workspace's resource answers 404.
 */
export type RouteNeed = Permission | "public";

export const ROUTE_TABLE: Record<string, RouteNeed> = {
  "POST /api/auth/login": "public",
  "POST /api/auth/logout": "session",
  "GET /api/auth/me": "session",
  "GET /api/auth/options": "public",
  "GET /api/auth/oidc/start": "public",
  "GET /api/auth/oidc/callback": "public",

  "GET /api/audit": "audit.read",
  // Links: what one is for, and using it (an invitation, the first-run setup link, a sample sign-in link).
  "GET /api/invites/:token": "public",
  "POST /api/invites/:token/accept": "public",
  // Members and the workspace's keys: owners and admins (only an owner grants or touches the owner role).
  "GET /api/members": "app.read",
  "POST /api/members/invites": "members.manage",
  "GET /api/members/invites": "members.manage",
  "DELETE /api/members/invites/:inviteId": "members.manage",
  "PUT /api/members/:userId": "members.manage",
  "DELETE /api/members/:userId": "members.manage",
  "POST /api/members/:userId/password": "members.owner",
  "GET /api/keys": "members.manage",
  "POST /api/keys": "members.manage",
  "DELETE /api/keys/:keyId": "members.manage",
  // The signed-in user's workspaces, and moving the session to another of them (the studio's switcher).
  "GET /api/auth/workspaces": "session",
  "POST /api/auth/switch": "session",

  "GET /api/apps": "app.read",
  "POST /api/apps": "app.edit",
  "POST /api/apps/import": "app.edit",
  "GET /api/apps/:id": "app.read",
  "DELETE /api/apps/:id": "app.delete",
  "GET /api/apps/:id/workflow": "app.read",
  "PUT /api/apps/:id/workflow": "app.edit",
  "GET /api/apps/:id/versions": "app.read",
  "GET /api/apps/:id/versions/:v": "app.read",
  "GET /api/apps/:id/versions/:v/diff": "app.read",
  "POST /api/apps/:id/versions/:v/restore": "app.edit",
  "POST /api/apps/:id/import": "app.edit",
  "GET /api/apps/:id/export": "app.read",
  "GET /api/apps/:id/messages": "app.read",
  "GET /api/apps/:id/runs": "app.read",
  "GET /api/apps/:id/usage": "app.read",
  "POST /api/apps/:id/runs": "app.run",
  "GET /api/apps/:id/draft": "app.read",
  "PUT /api/apps/:id/draft": "app.edit",
  "POST /api/apps/:id/publish": "app.publish",
  "GET /api/apps/:id/env": "app.read",
  "PUT /api/apps/:id/env/:name": "app.edit",
  "DELETE /api/apps/:id/env/:name": "app.edit",
  "GET /api/apps/:id/conversations/:cid": "app.read",
  // App tests: cases are edited like the workflow, run like it; the gate setting guards publishing.
  "GET /api/apps/:id/tests": "app.read",
  "POST /api/apps/:id/tests": "app.edit",
  "GET /api/apps/:id/tests/:caseId": "app.read",
  "PUT /api/apps/:id/tests/:caseId": "app.edit",
  "DELETE /api/apps/:id/tests/:caseId": "app.edit",
  "GET /api/apps/:id/tests/settings": "app.read",
  "PUT /api/apps/:id/tests/settings": "app.publish",
  "GET /api/apps/:id/tests/overrides": "app.read",
  "GET /api/apps/:id/tests/export": "app.read",
  "POST /api/apps/:id/tests/import": "app.edit",
  "POST /api/apps/:id/tests/run": "app.run",
  // Triggers start runs of published apps: turning one on or off is publishing-level; listing is reading.
  "GET /api/triggers": "app.read",
  "POST /api/triggers/:id/enable": "app.publish",
  "POST /api/triggers/:id/disable": "app.publish",
  "POST /api/apps/:id/chat": "app.edit",
  "ALL /api/apps/:id/mcp": "app.run",
  "GET /api/apps/:id/proposals": "app.read",
  "POST /api/apps/:id/proposals": "app.edit",
  "GET /api/apps/:id/proposals/:pid": "app.read",
  "POST /api/apps/:id/proposals/:pid/apply": "app.edit",
  "POST /api/apps/:id/proposals/:pid/reject": "app.edit",
  "GET /api/apps/:id/undo": "app.read",
  "POST /api/apps/:id/undo": "app.edit",

  "GET /api/runs": "app.read",
  "GET /api/runs/:id": "app.read",
  "GET /api/runs/:id/trace": "app.read",
  "GET /api/runs/:id/events": "app.read",
  "POST /api/runs/:id/resume": "app.run",
  "POST /api/runs/:id/cancel": "app.run",
  "GET /api/runs/:id/forms": "app.read",
  "POST /api/runs/:id/forms/:formId": "app.run",

  "GET /api/knowledge": "knowledge.read",
  "POST /api/knowledge": "knowledge.edit",
  "GET /api/knowledge/:id": "knowledge.read",
  "DELETE /api/knowledge/:id": "knowledge.edit",
  "GET /api/knowledge/:id/documents": "knowledge.read",
  "POST /api/knowledge/:id/documents": "knowledge.edit",
  "POST /api/knowledge/:id/preview": "knowledge.edit",
  "DELETE /api/knowledge/:id/documents/:doc": "knowledge.edit",
  "POST /api/knowledge/:id/search": "knowledge.read",

  "POST /api/files": "app.run",
  "GET /api/models": "app.read",
  "POST /api/node-template": "app.read",
  "GET /api/node-types": "app.read",
  "POST /api/analyse": "app.read",
  "POST /api/analyse/available": "app.read",
  "ALL /api/analyse": "app.read",
};

export interface RouteEntry {
  method: string;
  path: string;
  need: RouteNeed;
}

export const routeEntries = (): RouteEntry[] =>
  Object.entries(ROUTE_TABLE).map(([k, need]) => {
    const [method, path] = k.split(" ") as [string, string];
    return { method, path, need };
  });
