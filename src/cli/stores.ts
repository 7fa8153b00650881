import { openStores } from "../store/open.js";
import type { Stores } from "../store/stores.js";
import { loadWeftConfig } from "./config.js";

/** Runs `f` on the stores a command's `--db` names (else weft.config.json's `db`), closed again whatever `f` does. */
export async function withStores<T>(opts: { db?: string; config?: string }, f: (s: Stores) => Promise<T>): Promise<T> {
  const stores = await openStores(opts.db ?? loadWeftConfig(opts.config).db);
  try {
    return await f(stores);
  } finally {
    await stores.close();
  }
}
