import type { Workflow } from "../../ir/workflow.js";

/**
 * Whether the app takes files with a message or run (`files`), as Dify's FileUploadConfigManager reads its
 * features: `file_upload.enabled`, or the older `file_upload.image.enabled`. Dify drops the `files` of an app
 * that does not, so nothing is fetched for them (a remote URL is never downloaded).
 */
export function acceptsFiles(wf: Workflow): boolean {
  const upload = wf.features?.file_upload;
  if (!upload || typeof upload !== "object") return false;
  const u = upload as { enabled?: unknown; image?: { enabled?: unknown } };
  return u.enabled === true || u.image?.enabled === true;
}
