import { Hono } from "hono";
import { EnvError } from "../../secrets/errors.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

const STATUS: Record<string, number> = {
  "env.bad_name": 400,
  "env.bad_value": 400,
  "env.bad_type": 400,
  "app.not_found": 404,
  "env.not_found": 404,
};

/** An env error as the API answers it: bad input 400, unknown app or variable 404. */
async function answering<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof EnvError) throw new ApiError(STATUS[e.code] ?? 400, e.code, e.message, undefined, e.details);
    throw e;
  }
}

/** `/api/apps/:id/env`: list, set and delete an app's environment variables; a secret's value is never sent. */
export function envRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.get("/:id/env", (c) => answering(async () => c.json({ variables: await deps.env.list(c.req.param("id")) })));
  r.put("/:id/env/:name", async (c) => {
    const body = await readJson(c);
    return answering(async () =>
      c.json(await deps.env.set(c.req.param("id"), c.req.param("name"), body.type, body.value)),
    );
  });
  r.delete("/:id/env/:name", (c) =>
    answering(async () => {
      await deps.env.delete(c.req.param("id"), c.req.param("name"));
      return c.body(null, 204);
    }),
  );
  return r;
}
