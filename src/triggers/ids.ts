import { randomBytes } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/**
 * A trigger id: 24 characters of a 62-letter alphabet from the CSPRNG (about 142 bits), as unguessable as
 * Dify's 24-character webhook ids. Rejection sampling keeps every letter equally likely.
 */
export function mintTriggerId(): string {
  let out = "";
  while (out.length < 24) {
    for (const b of randomBytes(32)) {
      if (b < 248 && out.length < 24) out += ALPHABET[b % 62];
    }
  }
  return out;
}

export const TRIGGER_ID_PATTERN = /^[A-Za-z0-9]{24}$/;
