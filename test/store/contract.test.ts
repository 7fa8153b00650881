import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { openStores } from "../../src/store/open.js";
import { describeStoreContract } from "./contract.js";

const dir = mkdtempSync(join(tmpdir(), "weft-store-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract("memory", { open: () => openStores(":memory:") });

let n = 0;
let last = "";
describeStoreContract("SQLite", {
  open: () => {
    n++;
    last = join(dir, `db-${n}.sqlite`);
    return openStores(last);
  },
  openAgain: () => openStores(`sqlite:${last}`),
});
