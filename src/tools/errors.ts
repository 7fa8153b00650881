import { WeftError } from "../ir/errors.js";

/** A tool was called with parameters it cannot use (missing, wrong shape, unparsable numbers ...). */
export class ToolError extends WeftError {}

/** A file could not be stored or read back (unknown id, remote file without an HTTP service ...). */
export class FileStoreError extends WeftError {}

/**
 * Text extraction failed. `document.unsupported_type` names the type; `document.extract_failed`
 * carries the extractor's reason (corrupt PDF, invalid JSON ...).
 */
export class DocumentError extends WeftError {}
