import { type Context, Hono } from "hono";
import { z } from "zod";
import { ROLES } from "../../store/teams.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

const KeyBody = z.object({ name: z.string().min(1).max(100).default("default"), role: z.enum(ROLES) });

/**
 * The workspace's API keys (`members.manage`): a key acts in the workspace with its role; an admin cannot make
 * an owner key. `app-…` keys of the Dify service API stay bound to one app (`weft keys create --app`).
 */
export function keyRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const { apps } = deps;
  const ws = (c: Context) => c.get("principal").workspaceId;

  r.get("/", async (c) => c.json({ keys: (await apps.listKeys()).filter((k) => k.workspaceId === ws(c)) }));

  r.post("/", async (c) => {
    const body = KeyBody.safeParse(await readJson(c));
    if (!body.success)
      throw new ApiError(
        400,
        "key.invalid_request",
        `send JSON {"name": "…", "role": "${ROLES.join("|")}"}`,
        undefined,
        {
          field: body.error.issues[0]?.path.join(".") || "role",
        },
      );
    if (body.data.role === "owner" && c.get("principal").role !== "owner")
      throw new ApiError(403, "member.owner_only", "only an owner may create an owner key");
    const k = await apps.createKey(body.data.name, { workspaceId: ws(c), role: body.data.role });
    c.set("auditDetail", { key: k.id, name: body.data.name, role: body.data.role });
    return c.json({ id: k.id, key: k.key, name: body.data.name, role: body.data.role, workspaceId: ws(c) }, 201);
  });

  r.delete("/:keyId", async (c) => {
    const id = c.req.param("keyId");
    const k = (await apps.listKeys()).find((x) => x.id === id && x.workspaceId === ws(c));
    if (!k || !(await apps.revokeKey(id)))
      throw new ApiError(404, "key.not_found", `no API key ${id} in this workspace`);
    return c.json({ ok: true });
  });
  return r;
}
