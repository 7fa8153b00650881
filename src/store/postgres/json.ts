/** JSON text for a `json` column; `undefined` is SQL NULL (no value), distinct from a JSON `null`. */
export const toJson = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/** The value of a `json` column as the pool returns it (text); SQL NULL is `undefined`. */
export const fromJson = <T>(s: string | null | undefined): T | undefined =>
  s === null || s === undefined ? undefined : (JSON.parse(s) as T);

/** The value of a NOT NULL `json` column. */
export const json = <T>(s: string): T => JSON.parse(s) as T;
