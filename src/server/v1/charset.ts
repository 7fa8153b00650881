import type { MiddlewareHandler } from "hono";

const TEXTUAL = /^(application\/json|text\/event-stream|text\/plain)\s*(;|$)/i;

/**
 * Dify answers every JSON and event-stream response with `charset=utf-8`. Without it, clients that follow
 * HTTP's old default (Python's requests decodes `text/*` as ISO-8859-1) turn CJK text into mojibake.
 */
export const utf8Charset: MiddlewareHandler = async (c, next) => {
  await next();
  const type = c.res.headers.get("content-type");
  if (!type || !TEXTUAL.test(type) || /charset=/i.test(type)) return;
  const value = `${type.split(";")[0]!.trim()}; charset=utf-8`;
  try {
    c.res.headers.set("content-type", value);
  } catch {
    // A response with immutable headers: copy it with the header set.
    const headers = new Headers(c.res.headers);
    headers.set("content-type", value);
    c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
  }
};
