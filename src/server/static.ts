import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context } from "hono";
import mime from "mime-types";

export const DEFAULT_WEB_DIR = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../web/dist");

/**
 * Serves the built UI: files under `dir`, and index.html for any other GET (client-side routes).
 * Paths are resolved inside `dir` only.
 */
export function serveWeb(dir: string) {
  const root = resolve(dir);
  return (c: Context): Response => {
    const index = join(root, "index.html");
    if (!existsSync(index)) {
      return c.html(
        "<!doctype html><title>Weft</title><p>The web UI is not built. Run <code>npm run build:web</code>, then reload. The API is at <code>/api/</code>.</p>",
        503,
      );
    }
    const rel = normalize(decodeURIComponent(new URL(c.req.url).pathname)).replace(/^([/\\])+/, "");
    const file = resolve(root, rel);
    if ((file === root || file.startsWith(root + sep)) && rel && existsSync(file) && statSync(file).isFile()) {
      const type = mime.lookup(file) || "application/octet-stream";
      const immutable = rel.startsWith("assets/");
      return c.body(readFileSync(file), 200, {
        "content-type": type,
        "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      });
    }
    if (extname(rel)) return c.json({ error: { code: "route.not_found", message: `no file ${rel}` } }, 404);
    return c.body(readFileSync(index), 200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-cache",
    });
  };
}
