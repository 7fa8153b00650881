import { WeftError } from "../ir/errors.js";

/** A database specifier (`--db`, config `db`) that names no store Weft can open. */
export class StoreSpecError extends WeftError {}

/** The store named by a valid specifier could not be opened (missing directory, not a database, no access). */
export class StoreOpenError extends WeftError {}
