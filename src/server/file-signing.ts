import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { WeftError } from "../ir/errors.js";
import type { FileValue } from "../ir/services.js";

/** How long a signed file URL stays valid (Dify's FILES_ACCESS_TIMEOUT default: 300 s). */
export const FILE_URL_TTL_S = 300;

const STORE_ID = /^[0-9a-f]{64}(\.[A-Za-z0-9]{1,16})?$/;

/** A signed file URL refused: bad signature, expired, or not a file of this server. */
export class FileUrlError extends WeftError {}

export interface SignedQuery {
  timestamp: string;
  nonce: string;
  sign: string;
}

/**
 * Dify's signed, expiring file URLs (`/files/:id/file-preview?timestamp=&nonce=&sign=`): the signature is
 * the HMAC-SHA256 of `file-preview|<id>|<timestamp>|<nonce>` with the server's key, base64url. The id is the
 * store's content id with the file's extension, so the type the URL serves is signed too.
 *
 * The key: `WEFT_FILES_SIGNING_KEY` (servers that share a file store and a balancer must share it), else one
 * drawn when the server starts — its URLs then end with it, which their five-minute life makes acceptable.
 */
export class FileSigner {
  private readonly key: Buffer;

  constructor(
    key = process.env.WEFT_FILES_SIGNING_KEY,
    private readonly now = () => Date.now(),
  ) {
    this.key = key ? Buffer.from(key, "utf8") : randomBytes(32);
  }

  private mac(id: string, timestamp: string, nonce: string): string {
    return createHmac("sha256", this.key).update(`file-preview|${id}|${timestamp}|${nonce}`).digest("base64url");
  }

  /** The URL path and query of a stored file (undefined for a file this server does not store). */
  path(file: FileValue): string | undefined {
    const id = storeId(file);
    if (!id) return undefined;
    const timestamp = String(Math.floor(this.now() / 1000));
    const nonce = randomBytes(16).toString("hex");
    const q = new URLSearchParams({ timestamp, nonce, sign: this.mac(id, timestamp, nonce) });
    return `/files/${id}/file-preview?${q}`;
  }

  /** Check a request's id and query; throws a FileUrlError naming what is wrong. */
  verify(id: string, q: Partial<SignedQuery>): void {
    if (!STORE_ID.test(id)) throw new FileUrlError("file_url.bad_id", `"${id}" is not a file id of this server`);
    const { timestamp, nonce, sign } = q;
    if (!timestamp || !nonce || !sign || !/^\d+$/.test(timestamp))
      throw new FileUrlError("file_url.unsigned", "the file URL needs timestamp, nonce and sign (ask the API again)");
    const want = Buffer.from(this.mac(id, timestamp, nonce));
    const got = Buffer.from(sign.replace(/=+$/, ""));
    if (want.length !== got.length || !timingSafeEqual(want, got))
      throw new FileUrlError("file_url.bad_sign", "the file URL's signature is not valid");
    if (Math.floor(this.now() / 1000) - Number(timestamp) > FILE_URL_TTL_S)
      throw new FileUrlError(
        "file_url.expired",
        `the file URL expired (they last ${FILE_URL_TTL_S} s; ask the API again)`,
      );
  }
}

/** The content id and extension of a file in this server's store; undefined for remote files. */
export function storeId(file: FileValue): string | undefined {
  if (typeof file.related_id !== "string" || !/^[0-9a-f]{64}$/.test(file.related_id)) return undefined;
  const ext = typeof file.extension === "string" && /^\.[A-Za-z0-9]{1,16}$/.test(file.extension) ? file.extension : "";
  return `${file.related_id}${ext}`;
}

function isFile(v: unknown): v is FileValue {
  return (
    !!v &&
    typeof v === "object" &&
    ((v as FileValue).dify_model_identity === "__dify__file__" ||
      (typeof (v as FileValue).transfer_method === "string" && "related_id" in (v as object)))
  );
}

/**
 * A copy of a response value with every stored file that has no URL given a fresh signed one (`origin` is
 * the server's address as the client reached it). Everything else is left as it is.
 */
export function withFileUrls<T>(value: T, signer: FileSigner, origin: string): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== "object") return v;
    if (isFile(v)) {
      if (v.url) return v;
      const path = signer.path(v);
      return path ? { ...v, url: `${origin}${path}` } : v;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  return walk(value) as T;
}

/** Every stored file in a value (Dify's fetch_files_from_node_outputs: the `files` of workflow_finished). */
export function filesIn(value: unknown): FileValue[] {
  if (Array.isArray(value)) return value.flatMap(filesIn);
  if (!value || typeof value !== "object") return [];
  if (isFile(value)) return [value];
  return Object.values(value).flatMap(filesIn);
}
