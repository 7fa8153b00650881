import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Password hashes with Node's scrypt (OpenSSL's; no native build, no hand-written crypto). The cost is
 * stored with each hash, so raising it later still verifies older hashes. N = 2^15, r = 8: ~32 MiB and
 * tens of milliseconds per check, OWASP's scrypt minimum or above.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LEN = 32;
const MAX_MEM = 128 * COST.N * COST.r * 2;

function derive(password: string, salt: Buffer, c: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_LEN,
      { ...c, maxmem: Math.max(MAX_MEM, 128 * c.N * c.r * 2) },
      (e, k) => (e ? reject(e) : resolve(k)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** False for a wrong password and for a hash this code cannot read (never throws on stored data). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N > 2 ** 20 || r > 32 || p > 16) return false;
  const want = Buffer.from(m[5]!, "base64url");
  const got = await derive(password, Buffer.from(m[4]!, "base64url"), { N, r, p });
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Compared against when the email is unknown, so both answers take the same time (no user enumeration). */
let dummy: Promise<string> | undefined;
export const dummyHash = () => {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
};

/** What a password must be; the reason names the rule. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 8) return "a password needs at least 8 characters";
  if (password.length > 1024) return "a password may have at most 1024 characters";
  return undefined;
}
