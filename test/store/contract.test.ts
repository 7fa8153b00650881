import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { openStores } from "../../src/store/open.js";
import { hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";
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

// One cluster for the file, a new database per test. CI installs PostgreSQL, so there a missing server fails
// (in beforeAll) instead of skipping.
describe.skipIf(!hasPostgres && !process.env.CI)(
  hasPostgres ? "PostgreSQL" : "PostgreSQL (not installed: apt-get install postgresql)",
  () => {
    let cluster: PgCluster | undefined;
    let url = "";
    beforeAll(async () => {
      cluster = await startPostgres();
    }, 120_000);
    // Stopping waits for PostgreSQL's shutdown checkpoint and removes its data directory: slow on a loaded disk.
    afterAll(() => cluster?.stop(), 180_000);
    describeStoreContract("PostgreSQL", {
      open: async () => {
        url = await cluster!.createDatabase();
        return openStores(url);
      },
      openAgain: () => openStores(url),
    });
  },
);
