import { createParser } from "eventsource-parser";
import type { Diagnostic } from "./types";

const KEY = "weft.apiKey";

export const getKey = () => localStorage.getItem(KEY) ?? "";
export const setKey = (k: string) => (k ? localStorage.setItem(KEY, k) : localStorage.removeItem(KEY));

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly diagnostics: Diagnostic[] = [],
  ) {
    super(message);
  }
}

/** Called when the server refuses the stored key (restarted with a new database, key revoked). */
let onUnauthorized: (f: ApiFailure) => void = () => {};
export const setUnauthorizedHandler = (f: (f: ApiFailure) => void) => {
  onUnauthorized = f;
};

/** Called when the server refuses an action to the role (an owner may have changed it since the page loaded). */
let onForbidden: (f: ApiFailure) => void = () => {};
export const setForbiddenHandler = (f: (f: ApiFailure) => void) => {
  onForbidden = f;
};

export async function failure(res: Response): Promise<ApiFailure> {
  let f: ApiFailure;
  try {
    const body = (await res.json()) as { error?: { code: string; message: string; diagnostics?: Diagnostic[] } };
    f = new ApiFailure(
      res.status,
      body.error?.code ?? "http",
      body.error?.message ?? res.statusText,
      body.error?.diagnostics ?? [],
    );
  } catch {
    f = new ApiFailure(res.status, "http", res.statusText);
  }
  if (res.status === 401) onUnauthorized(f);
  if (res.status === 403 && f.code === "auth.forbidden") onForbidden(f);
  return f;
}

/** The session's CSRF token: the server sets it as the readable `weft_csrf` cookie; changes echo it in a header. */
export function csrfToken(): string {
  const m = /(?:^|;\s*)weft_csrf=([^;]*)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]!) : "";
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  // A pasted API key goes as Bearer; a signed-in browser sends its HTTP-only session cookie by itself.
  const key = getKey();
  const csrf = csrfToken();
  // x-weft-client: the run log files the studio's runs under source "studio".
  return {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(csrf ? { "x-csrf-token": csrf } : {}),
    "x-weft-client": "studio",
    ...extra,
  };
}

export async function api<T>(
  path: string,
  init: { method?: string; json?: unknown; body?: BodyInit; contentType?: string } = {},
): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.json !== undefined || init.body !== undefined ? "POST" : "GET"),
    headers: headers(
      init.json !== undefined
        ? { "content-type": "application/json" }
        : init.contentType
          ? { "content-type": init.contentType }
          : {},
    ),
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
  if (!res.ok) throw await failure(res);
  const type = res.headers.get("content-type") ?? "";
  return (type.includes("json") ? await res.json() : await res.text()) as T;
}

/** Upload one file to the server's file store; the answer is the file value a run input takes. */
export async function uploadFile(file: File): Promise<Record<string, unknown>> {
  const form = new FormData();
  form.append("file", file, file.name);
  const r = await api<{ file: Record<string, unknown> }>("/api/files", { body: form });
  return r.file;
}

/** POST or GET an SSE endpoint with the API key (EventSource cannot send headers), calling `onEvent` per message. */
export async function stream(
  path: string,
  onEvent: (data: any) => void,
  init: { json?: unknown; signal?: AbortSignal } = {},
): Promise<void> {
  const res = await fetch(path, {
    method: init.json !== undefined ? "POST" : "GET",
    headers: headers(init.json !== undefined ? { "content-type": "application/json" } : {}),
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    signal: init.signal,
  });
  if (!res.ok || !res.body) throw await failure(res);
  const parser = createParser({ onEvent: (e) => onEvent(JSON.parse(e.data)) });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
}

/** Download a text response (Dify YAML export) as a file. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await fetch(path, { headers: headers() });
  if (!res.ok) throw await failure(res);
  const m = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "");
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = m?.[1] ?? fallbackName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
