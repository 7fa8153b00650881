/** A per-app environment variable's kind, as Dify's `environment_variables` value types. */
export type EnvType = "string" | "number" | "secret";

/** A secret as stored: AES-256-GCM ciphertext, its IV and tag (base64) and the id of the key that sealed it. */
export interface SealedValue {
  keyId: string;
  iv: string;
  tag: string;
  data: string;
}

/**
 * One app's stored value of one variable. A string or number keeps `value`; a secret keeps only `sealed`
 * (the store never sees its clear text; src/secrets/ seals and opens it).
 */
export interface EnvRecord {
  appId: string;
  name: string;
  type: EnvType;
  value?: string | number;
  sealed?: SealedValue;
  updatedAt: number;
}

/** Per-app environment variable values; implemented in memory, on SQLite and on PostgreSQL. */
export interface EnvStore {
  /** The app's stored values, by name. */
  list(appId: string): Promise<EnvRecord[]>;
  get(appId: string, name: string): Promise<EnvRecord | undefined>;
  /** Insert or replace (type included) the value of (appId, name). */
  put(rec: EnvRecord): Promise<void>;
  /** False if nothing was stored under that name. */
  delete(appId: string, name: string): Promise<boolean>;
  /** Every value of the app (the app was deleted). */
  deleteApp(appId: string): Promise<void>;
  /** Every stored secret of every app: checking the key at start, rotating it. */
  secrets(): Promise<EnvRecord[]>;
  /** Replace the sealed values of these secrets, all or none (a key rotation). */
  reseal(recs: EnvRecord[]): Promise<void>;
}
