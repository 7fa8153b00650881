// Issue 29 item 5: the environment variables API (the studio's panel is built on exactly this contract), typed
// errors, import warnings naming the command, a wrong key refusing the start, and `weft env rotate-key`.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDify } from "../../src/dsl/dify/index.js";
import { AppEnv } from "../../src/secrets/app-env.js";
import { KeyProvider } from "../../src/secrets/key.js";
import { startServer } from "../../src/server/index.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { runWeft, WEFT_BIN } from "../support/weft-bin.js";
import { startTestServer, type TestServer } from "./helpers.js";

const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [] },
    tpl("t", "{{ k }}", { k: ["env", "TOKEN"] }),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["t", "output"] }] },
  ],
  edges: [
    ["start", "t"],
    ["t", "end"],
  ],
  environment_variables: [
    { name: "TOKEN", value_type: "secret", value: "" },
    { name: "LIMIT", value_type: "number", value: 3 },
  ],
});

/** The environment with no secret key: each test names its own key file, or none. */
const noKey = () => ({ ...process.env, WEFT_SECRET_KEY: "", WEFT_SECRET_KEY_FILE: "" });
const weft = (args: string[], input?: string) => runWeft(args, { env: noKey(), input });

describe("/api/apps/:id/env", () => {
  let s: TestServer;
  let appId = "";
  beforeAll(async () => {
    s = await startTestServer();
    const res = await s.api("/api/apps", { method: "POST", json: { name: "env", workflow: wf } });
    appId = (await res.json()).app.id;
  });
  afterAll(() => s.stop());

  it("lists declarations with stored values; a secret's value is null with `set`", async () => {
    let res = await s.api(`/api/apps/${appId}/env`);
    expect(await res.json()).toEqual({
      variables: [
        { name: "LIMIT", type: "number", value: 3, set: true },
        { name: "TOKEN", type: "secret", value: null, set: false },
      ],
    });
    res = await s.api(`/api/apps/${appId}/env/TOKEN`, { method: "PUT", json: { type: "secret", value: "tok-123456" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "TOKEN", type: "secret", value: null, set: true });
    res = await s.api(`/api/apps/${appId}/env/LIMIT`, { method: "PUT", json: { type: "number", value: "7.5" } });
    expect(await res.json()).toEqual({ name: "LIMIT", type: "number", value: 7.5, set: true });
    res = await s.api(`/api/apps/${appId}/env/EXTRA`, { method: "PUT", json: { type: "string", value: "x" } });
    expect(await res.json()).toEqual({ name: "EXTRA", type: "string", value: "x", set: true });
    res = await s.api(`/api/apps/${appId}/env`);
    const text = await res.text();
    expect(text).not.toContain("tok-123456");
    expect(JSON.parse(text).variables.map((v: { name: string }) => v.name)).toEqual(["EXTRA", "LIMIT", "TOKEN"]);

    // The run gets the value; its record does not.
    const run = await s.api(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs: {} } });
    const { runId } = await run.json();
    await s.deps.hub.drain();
    const detail = await (await s.api(`/api/runs/${runId}`)).json();
    expect(detail).toMatchObject({ status: "succeeded", outputs: { out: "[secret]" } });

    res = await s.api(`/api/apps/${appId}/env/EXTRA`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  it("typed errors: env.bad_name, env.bad_value (400), app.not_found, env.not_found (404)", async () => {
    const cases: Array<[string, RequestInit & { json?: unknown }, number, string]> = [
      [`/api/apps/${appId}/env/1BAD`, { method: "PUT", json: { type: "string", value: "x" } }, 400, "env.bad_name"],
      [`/api/apps/${appId}/env/has-dash`, { method: "DELETE" }, 400, "env.bad_name"],
      [`/api/apps/${appId}/env/N`, { method: "PUT", json: { type: "number", value: "ten" } }, 400, "env.bad_value"],
      [`/api/apps/${appId}/env/N`, { method: "PUT", json: { type: "string", value: 5 } }, 400, "env.bad_value"],
      [`/api/apps/${appId}/env/N`, { method: "PUT", json: { type: "secret", value: "" } }, 400, "env.bad_value"],
      [`/api/apps/${appId}/env/N`, { method: "PUT", json: { type: "blob", value: "x" } }, 400, "env.bad_type"],
      ["/api/apps/nope/env", {}, 404, "app.not_found"],
      ["/api/apps/nope/env/X", { method: "PUT", json: { type: "string", value: "x" } }, 404, "app.not_found"],
      [`/api/apps/${appId}/env/NEVER_SET`, { method: "DELETE" }, 404, "env.not_found"],
    ];
    for (const [path, init, status, code] of cases) {
      const res = await s.api(path, init);
      expect({ path, status: res.status, code: (await res.json()).error.code }).toEqual({ path, status, code });
    }
  });

  it("an import whose secret is empty warns, naming the command, on the import and on the node reading it", async () => {
    const res = await s.api("/api/apps/import", {
      method: "POST",
      body: exportDify(wf),
      headers: { "content-type": "text/yaml" },
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    const id = body.app.id;
    const cmd = `weft env set ${id} TOKEN --secret`;
    expect(body.warnings).toContainEqual(
      expect.objectContaining({ code: "env.secret_empty", severity: "warning", message: expect.stringContaining(cmd) }),
    );
    expect(body.warnings).toContainEqual(expect.objectContaining({ code: "env.secret_unset", nodeId: "t" }));
    const view = await (await s.api(`/api/apps/${id}/workflow`)).json();
    expect(view.diagnostics).toContainEqual(
      expect.objectContaining({ code: "env.secret_unset", nodeId: "t", message: expect.stringContaining(cmd) }),
    );
    const draft = await (await s.api(`/api/apps/${id}/draft`)).json();
    expect(draft.diagnostics).toContainEqual(expect.objectContaining({ code: "env.secret_unset", nodeId: "t" }));
    await s.api(`/api/apps/${id}/env/TOKEN`, { method: "PUT", json: { type: "secret", value: "now-set" } });
    const after = await (await s.api(`/api/apps/${id}/workflow`)).json();
    expect(after.diagnostics.filter((d: { code: string }) => d.code === "env.secret_unset")).toEqual([]);
  });

  it("a file that carries a secret's value: sealed into the env store, blank in the version and the export", async () => {
    const carrying = { ...wf, environment_variables: [{ name: "TOKEN", value_type: "secret", value: "carried-77x" }] };
    const res = await s.api("/api/apps/import", {
      method: "POST",
      body: exportDify(carrying).replace('value: ""', "value: carried-77x"),
      headers: { "content-type": "text/yaml" },
    });
    const created = await res.json();
    const id = created.app.id;
    expect(created.warnings.filter((w: { code: string }) => w.code.startsWith("env."))).toEqual([]);
    for (const path of [`/api/apps/${id}/workflow`, `/api/apps/${id}/export`, `/api/apps/${id}/env`])
      expect(await (await s.api(path)).text()).not.toContain("carried-77x");
    expect((await (await s.api(`/api/apps/${id}/env`)).json()).variables).toContainEqual({
      name: "TOKEN",
      type: "secret",
      value: null,
      set: true,
    });
  });
});

describe("the key", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-env-key-"));
  const db = join(dir, "weft.db");
  const keyFile = join(dir, "weft-secret.key");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a wrong key refuses the start naming the key file; rotate-key re-encrypts; the CLI's errors are typed", async () => {
    const first = await startServer({ db, port: 0 });
    const { app } = await first.deps.apps.createApp({ name: "k", mode: "workflow" }, wf, "create");
    await first.close();
    const set = weft(["env", "set", app.id, "TOKEN", "--secret", "--db", db], "value-1");
    expect(set).toMatchObject({ code: 0 });
    const bad = weft(["env", "set", app.id, "no good", "--db", db], "x");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("error env.bad_name");
    const unknown = weft(["env", "list", "nope", "--db", db]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("error app.not_found");
    const list = weft(["env", "list", app.id, "--db", db]);
    expect(list.out).toContain("TOKEN  secret  (set)");
    expect(list.out).not.toContain("value-1");

    const original = readFileSync(keyFile, "utf8");
    const rotated = weft(["env", "rotate-key", "--db", db]);
    expect(rotated.code).toBe(0);
    expect(rotated.out).toMatch(/^1 secret\(s\) re-encrypted with key [0-9a-f]{16}/);
    expect(readFileSync(keyFile, "utf8")).not.toBe(original);
    const stores = await openStores(db);
    try {
      expect(
        (await new AppEnv(stores.env, stores.apps, new KeyProvider(keyFile, undefined)).forRun(app.id)).values,
      ).toEqual({
        TOKEN: "value-1",
      });
    } finally {
      await stores.close();
    }

    // Another key in the file: the server does not start, and says which file.
    writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    await expect(startServer({ db, port: 0 })).rejects.toMatchObject({
      code: "secret.wrong_key",
      message: expect.stringContaining(keyFile),
    });
    const serve = spawnSync(WEFT_BIN, ["serve", "--db", db, "--port", "0"], {
      env: noKey(),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain("error secret.wrong_key");
    expect(serve.stderr).toContain(keyFile);
  }, 120_000);

  it("`weft apps import` says which secrets are empty and how to set them", () => {
    const file = join(dir, "app.yml");
    writeFileSync(file, exportDify(wf));
    const r = weft(["apps", "import", file, "--db", db]);
    expect(r.code).toBe(0);
    const id = r.out.trim().split("\n").at(-1)!;
    expect(r.err).toContain(`env.secret_empty`);
    expect(r.err).toContain(`weft env set ${id} TOKEN --secret`);
  }, 60_000);
});
