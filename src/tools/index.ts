import type { DocumentService, FileService, HttpService, ToolService } from "../ir/services.js";
import { LocalToolService } from "./builtin/service.js";
import { TextDocumentService } from "./documents.js";
import { DirFileService, MemoryFileService } from "./files.js";

export { type ExternalToolCall, type ExternalToolImpl, LocalToolService, providerKey } from "./builtin/service.js";
export { TextDocumentService } from "./documents.js";
export { DocumentError, FileStoreError, ToolError } from "./errors.js";
export { DirFileService, type FileStoreOptions, MemoryFileService, type PutMeta } from "./files.js";

export interface LocalServicesOptions {
  /** Keep files in this directory; in memory when omitted. */
  fileDir?: string;
  /** Base URL under which a server serves stored files (`<prefix>/<id><ext>`). */
  fileUrlPrefix?: string;
  /** Lets the file store download `remote_url` files. */
  http?: HttpService;
  /** The run's clock (ExecServices.now), so time tools follow a pinned clock. */
  now?: () => Date;
}

/** The file, document and tool services wired together, ready to drop into ExecServices. */
export function createLocalServices(opts: LocalServicesOptions = {}): {
  files: FileService & (DirFileService | MemoryFileService);
  documents: DocumentService;
  tools: ToolService & LocalToolService;
} {
  const storeOpts = { urlPrefix: opts.fileUrlPrefix, http: opts.http };
  const files = opts.fileDir ? new DirFileService(opts.fileDir, storeOpts) : new MemoryFileService(storeOpts);
  return { files, documents: new TextDocumentService(), tools: new LocalToolService({ files, now: opts.now }) };
}
