import { createHash, randomBytes } from "node:crypto";

/** Stores keep only this digest of an API key, so a leaked database does not leak usable keys. */
export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export const newApiKey = () => `weft_${randomBytes(24).toString("base64url")}`;

/** Dify's app keys look like `app-` and 24 characters; one key selects one app. */
export const newAppKey = () => `app-${randomBytes(18).toString("base64url")}`;
