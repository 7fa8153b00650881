import type { VersionRecord } from "../../store/apps.js";
import { ApiError } from "../errors.js";

/** A version as lists show it (no workflow). */
export const versionSummary = (v: VersionRecord) => ({
  version: v.version,
  source: v.source,
  note: v.note,
  ...(v.parent !== undefined ? { parent: v.parent } : {}),
  ...(v.restores !== undefined ? { restores: v.restores } : {}),
  createdAt: v.createdAt,
  nodes: v.workflow.nodes.length,
  edges: v.workflow.edges.length,
});

export function versionParam(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new ApiError(400, "request.invalid_version", `version must be a positive integer, got "${raw}"`);
  return n;
}
