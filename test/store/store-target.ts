// What every part of the store contract runs against, and the open-use-close step each of its tests takes.
import type { Stores } from "../../src/store/open.js";

export interface StoreTarget {
  /** A fresh, empty database. */
  open(): Promise<Stores>;
  /**
   * Another connection to the database `open` last created (a second process or server would use one);
   * absent for in-process stores.
   */
  openAgain?(): Promise<Stores>;
}

/** Opens the target's stores, runs `f` on them and closes them, whatever `f` does. */
export async function withStores<T>(target: StoreTarget, f: (s: Stores) => Promise<T>): Promise<T> {
  const s = await target.open();
  try {
    return await f(s);
  } finally {
    await s.close();
  }
}
