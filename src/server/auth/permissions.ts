import type { Role } from "../../store/teams.js";

/**
 * What a role may do, modelled on Dify's workspace roles (owner, admin, editor, normal member): Weft splits
 * Dify's "normal" member into `runner` (uses apps: runs them, answers their forms) and `viewer` (reads only).
 * The README's "Teams" section is this table in words.
 */
export const PERMISSIONS = [
  "app.read", // apps, versions, drafts, exports, runs and their logs, traces, models, analysis
  "app.run", // start, resume, cancel runs; answer forms; upload run files; apps' MCP endpoints
  "app.edit", // create, import, change drafts and versions, proposals, env variables and secrets
  "app.publish",
  "app.delete",
  "knowledge.read",
  "knowledge.edit",
  "members.manage", // invite, change roles, remove members; workspace API keys
  "members.owner", // what only an owner does: reset a member's password
  "audit.read", // the audit log (GET /api/audit)
  "session", // anyone signed in: who am I, sign out
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEWER: Permission[] = ["session", "app.read", "knowledge.read"];
const RUNNER: Permission[] = [...VIEWER, "app.run"];
const EDITOR: Permission[] = [...RUNNER, "app.edit", "app.publish", "app.delete", "knowledge.edit"];
const ADMIN: Permission[] = [...EDITOR, "members.manage", "audit.read"];

export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set([...ADMIN, "members.owner"]),
  admin: new Set(ADMIN),
  editor: new Set(EDITOR),
  runner: new Set(RUNNER),
  viewer: new Set(VIEWER),
};

export const allows = (role: Role, p: Permission) => ROLE_PERMISSIONS[role].has(p);
