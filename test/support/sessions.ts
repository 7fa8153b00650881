import { createMember } from "../../src/server/auth/users.js";
import type { Stores } from "../../src/store/stores.js";
import type { Role } from "../../src/store/teams.js";

/** A signed-in browser, as far as the API sees it: its cookies and the CSRF token it echoes. */
export interface Session {
  cookie: string;
  csrf: string;
  /** Headers for a request as this session (cookie, CSRF header, JSON when a body is given). */
  headers(json?: boolean): Record<string, string>;
}

export function sessionFrom(res: Response): Session {
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const cookie = cookies.join("; ");
  const csrf = cookies.find((c) => c.startsWith("weft_csrf="))?.slice("weft_csrf=".length) ?? "";
  return {
    cookie,
    csrf,
    headers: (json = false) => ({
      cookie,
      "x-csrf-token": csrf,
      ...(json ? { "content-type": "application/json" } : {}),
    }),
  };
}

export async function login(url: string, email: string, password: string): Promise<Session> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${await res.text()}`);
  return sessionFrom(res);
}

/** A member with a known password, signed in. */
export async function memberSession(
  stores: Stores,
  url: string,
  email: string,
  role: Role,
  workspaceId?: string,
): Promise<Session> {
  const password = `pw-${email}-long`;
  await createMember(stores, { email, password, role, ...(workspaceId ? { workspaceId } : {}) });
  return login(url, email, password);
}
