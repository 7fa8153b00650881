import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FileService, FileValue, HttpService } from "../ir/services.js";
import { FileStoreError } from "./errors.js";
import { extensionForMime, extensionOf, fileCategory, mimeForExtension } from "./mime.js";

export interface PutMeta {
  filename: string;
  mimeType: string;
  /** Defaults to `tool_file`, which is what Dify stamps on files that tools produce. */
  transferMethod?: FileValue["transfer_method"];
}

export interface FileStoreOptions {
  /** When set, stored files get `url: <urlPrefix>/<id><extension>` (for a server that serves them). */
  urlPrefix?: string;
  /** Lets `get` download `remote_url` files; without it they are refused with a typed error. */
  http?: HttpService;
  /** Download timeout for remote files. */
  timeoutMs?: number;
}

const ID_RE = /^[0-9a-f]{64}$/;

function contentId(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Decode an RFC 2397 `data:` URL; undefined when the text is not one. */
function decodeDataUrl(url: string): Uint8Array | undefined {
  const m = /^data:([^,]*?)(;base64)?,(.*)$/s.exec(url);
  if (!m) return undefined;
  const payload = m[3] ?? "";
  return m[2] ? new Uint8Array(Buffer.from(payload, "base64")) : new TextEncoder().encode(decodeURIComponent(payload));
}

/**
 * Shared logic of the stores: Dify-shaped file values, content addressing (the sha256 of the bytes is
 * `related_id`, so storing the same bytes twice costs nothing), and reading back files that did not
 * come from this store (data: URLs, remote URLs through the HTTP service).
 */
abstract class ContentAddressedStore implements FileService {
  constructor(protected readonly options: FileStoreOptions = {}) {}

  protected abstract write(id: string, bytes: Uint8Array): Promise<void>;
  protected abstract read(id: string): Promise<Uint8Array | undefined>;

  async put(bytes: Uint8Array, meta: PutMeta): Promise<FileValue> {
    if (!(bytes instanceof Uint8Array)) {
      throw new FileStoreError("file.invalid", `file "${meta.filename}": content must be bytes`, {
        filename: meta.filename,
      });
    }
    const id = contentId(bytes);
    await this.write(id, bytes);
    let extension = extensionOf(meta.filename);
    const mimeType = meta.mimeType || mimeForExtension(extension) || "application/octet-stream";
    if (!extension) extension = extensionForMime(mimeType);
    const filename = extensionOf(meta.filename) || !extension ? meta.filename : `${meta.filename}${extension}`;
    return {
      dify_model_identity: "__dify__file__",
      type: fileCategory(extension, mimeType),
      transfer_method: meta.transferMethod ?? "tool_file",
      remote_url: null,
      url: this.options.urlPrefix ? `${this.options.urlPrefix.replace(/\/$/, "")}/${id}${extension}` : null,
      filename,
      extension,
      mime_type: mimeType,
      size: bytes.byteLength,
      related_id: id,
    };
  }

  async get(file: FileValue): Promise<Uint8Array> {
    if (!file || typeof file !== "object") {
      throw new FileStoreError("file.invalid", `expected a file value, got ${JSON.stringify(file)}`);
    }
    const name = file.filename ?? "(unnamed)";
    if (typeof file.related_id === "string" && ID_RE.test(file.related_id)) {
      const hit = await this.read(file.related_id);
      if (hit) return hit;
    }
    for (const u of [file.url, file.remote_url]) {
      if (typeof u === "string") {
        const data = decodeDataUrl(u);
        if (data) return data;
      }
    }
    const remote = file.remote_url ?? (file.transfer_method === "remote_url" ? file.url : null);
    if (typeof remote === "string" && /^https?:\/\//i.test(remote)) {
      if (!this.options.http) {
        throw new FileStoreError(
          "file.remote_unavailable",
          `file "${name}" lives at ${remote}, and no HTTP service was given to the file store to download it`,
          { filename: name, url: remote },
        );
      }
      const res = await this.options.http.request({
        method: "GET",
        url: remote,
        headers: {},
        timeoutMs: this.options.timeoutMs ?? 30_000,
      });
      if (res.status < 200 || res.status >= 300) {
        throw new FileStoreError("file.download_failed", `file "${name}": GET ${remote} answered ${res.status}`, {
          filename: name,
          url: remote,
          status: res.status,
        });
      }
      return res.body;
    }
    throw new FileStoreError(
      "file.not_found",
      `file "${name}" (related_id ${String(file.related_id)}) is not in the file store`,
      {
        filename: name,
        related_id: file.related_id ?? null,
      },
    );
  }
}

/** Files kept in a directory as `<dir>/<first two hex>/<sha256>`. */
export class DirFileService extends ContentAddressedStore {
  readonly dir: string;
  constructor(dir: string, options: FileStoreOptions = {}) {
    super(options);
    this.dir = resolve(dir);
  }

  /** Absolute path of a stored file (for servers that stream it). */
  pathOf(id: string): string {
    if (!ID_RE.test(id)) throw new FileStoreError("file.invalid_id", `"${id}" is not a file id of this store`, { id });
    return join(this.dir, id.slice(0, 2), id);
  }

  protected async write(id: string, bytes: Uint8Array): Promise<void> {
    const path = this.pathOf(id);
    try {
      await stat(path);
      return; // same content already stored
    } catch {
      // not there yet
    }
    await mkdir(join(this.dir, id.slice(0, 2)), { recursive: true });
    // Write then rename, so a concurrent reader never sees a half-written file. The temporary name is
    // unique per write: parallel runs often store the same content in the same millisecond.
    const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, path);
  }

  protected async read(id: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.pathOf(id)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }
}

/** Same contract, kept in memory: tests and one-shot CLI runs. */
export class MemoryFileService extends ContentAddressedStore {
  private readonly blobs = new Map<string, Uint8Array>();

  get count(): number {
    return this.blobs.size;
  }

  protected async write(id: string, bytes: Uint8Array): Promise<void> {
    if (!this.blobs.has(id)) this.blobs.set(id, new Uint8Array(bytes));
  }

  protected async read(id: string): Promise<Uint8Array | undefined> {
    const b = this.blobs.get(id);
    return b ? new Uint8Array(b) : undefined;
  }
}
