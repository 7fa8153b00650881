import { monotonicFactory } from "ulid";

/**
 * ULIDs that increase within this process even inside one millisecond (plain `ulid()` is random there),
 * so the stores' `ORDER BY created_at, id` lists rows in the order they were made.
 */
export const newId: () => string = monotonicFactory();
