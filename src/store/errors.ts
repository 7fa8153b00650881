import { WeftError } from "../ir/errors.js";

/** A database specifier (`--db`, config `db`) that names no store Weft can open. */
export class StoreSpecError extends WeftError {}

/** A database operation failed for a reason outside Weft (a full disk, a read-only or corrupt file); names the file. */
export class StoreError extends WeftError {}

/** The store named by a valid specifier could not be opened (missing directory, not a database, no access). */
export class StoreOpenError extends StoreError {}
