import { extname } from "node:path";
import { declaredInputs } from "../../engine/inputs.js";
import type { FileValue } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import type { VersionRecord } from "../../store/apps.js";
import type { ServiceApiStore } from "../../store/service-api.js";
import { badParam } from "./errors.js";
import { checkFileRules, type FileRules, featureRules, variableRules } from "./file-rules.js";
import { acceptsFiles } from "./file-upload.js";

const FILE_TYPES = new Set(["image", "document", "audio", "video", "custom"]);

/**
 * One Dify file mapping (`{type, transfer_method: local_file, upload_file_id}` or `{type, transfer_method:
 * remote_url, url}`) as the engine's file value: an upload is looked up among this app's uploads.
 */
async function fileOf(
  service: ServiceApiStore,
  appId: string,
  where: string,
  m: unknown,
  rules?: FileRules,
): Promise<FileValue> {
  const file = await mappedFile(service, appId, where, m);
  if (rules) checkFileRules(rules, (m as { type?: unknown }).type as string | undefined, file, where);
  return file;
}

async function mappedFile(service: ServiceApiStore, appId: string, where: string, m: unknown): Promise<FileValue> {
  if (!m || typeof m !== "object" || Array.isArray(m))
    throw badParam(`${where} must be a file mapping {type, transfer_method, upload_file_id | url}`);
  const o = m as Record<string, unknown>;
  const type = o.type === undefined ? undefined : String(o.type);
  if (type !== undefined && !FILE_TYPES.has(type))
    throw badParam(`${where}.type must be one of ${[...FILE_TYPES].join(", ")}, got ${JSON.stringify(o.type)}`);
  if (o.transfer_method === "local_file") {
    if (typeof o.upload_file_id !== "string" || o.upload_file_id === "")
      throw badParam(`${where}.upload_file_id is required for transfer_method local_file`);
    const up = await service.getUpload(o.upload_file_id);
    if (!up || up.appId !== appId)
      throw badParam(`${where}: no uploaded file ${o.upload_file_id} (upload it with POST /v1/files/upload)`);
    return { ...up.file, type: (type as FileValue["type"]) ?? up.file.type, transfer_method: "local_file" };
  }
  if (o.transfer_method === "remote_url") {
    if (typeof o.url !== "string" || !/^https?:\/\//i.test(o.url))
      throw badParam(`${where}.url must be an http(s) URL for transfer_method remote_url`);
    const name = decodeURIComponent(new URL(o.url).pathname.split("/").pop() || "file");
    return {
      type: (type as FileValue["type"]) ?? "custom",
      transfer_method: "remote_url",
      remote_url: o.url,
      url: o.url,
      filename: name,
      extension: extname(name),
      mime_type: "",
      size: -1,
    };
  }
  throw badParam(`${where}.transfer_method must be local_file or remote_url, got ${JSON.stringify(o.transfer_method)}`);
}

/** Dify's `files` list (sys.files, or a file-list input): every mapping resolved and checked against `rules`. */
export async function resolveFileList(
  service: ServiceApiStore,
  appId: string,
  v: unknown,
  where = "files",
  rules?: FileRules,
): Promise<FileValue[]> {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw badParam(`${where} must be a list of file mappings`);
  return Promise.all(v.map((m, i) => fileOf(service, appId, `${where}[${i}]`, m, rules)));
}

/**
 * The request's `files` (sys.files), checked against the published version's `features.file_upload` as Dify
 * checks them. Dify ignores `files` an app does not accept (file upload off): never resolved, never fetched.
 */
export async function resolveAppFiles(
  service: ServiceApiStore,
  appId: string,
  published: VersionRecord | undefined,
  v: unknown,
): Promise<FileValue[]> {
  if (!published || !acceptsFiles(published.workflow)) return [];
  return resolveFileList(service, appId, v, "files", featureRules(published.workflow.features?.file_upload));
}

/**
 * The run inputs with every file and file-list input's mappings resolved and checked against the variable's
 * allowed types, extensions and upload methods; other values are left to the start node's checks.
 */
export async function resolveInputs(
  service: ServiceApiStore,
  appId: string,
  wf: Workflow,
  inputs: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const out = { ...inputs };
  for (const v of declaredInputs(wf)?.variables ?? []) {
    const raw = inputs[v.variable];
    if (raw === undefined || raw === null || raw === "") continue;
    const rules = variableRules(v);
    if (v.type === "file") out[v.variable] = await fileOf(service, appId, `inputs.${v.variable}`, raw, rules);
    if (v.type === "file-list")
      out[v.variable] = await resolveFileList(service, appId, raw, `inputs.${v.variable}`, rules);
  }
  return out;
}
