import { Hono } from "hono";
import { AppTestError, TestGateError } from "../../apptests/errors.js";
import { rubricJudge } from "../../apptests/judge.js";
import { reportMarkdown } from "../../apptests/report.js";
import { AppTests } from "../../apptests/service.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

const STATUS: Record<string, number> = {
  "app.not_found": 404,
  "tests.case_not_found": 404,
  "tests.run_not_found": 404,
  "tests.no_version": 404,
  "tests.case_exists": 409,
  "tests.no_cases": 409,
  "tests.no_draft": 409,
  "tests.run_not_finished": 409,
  "tests.invalid_case": 400,
  "tests.invalid_file": 400,
  "tests.bad_option": 400,
  "tests.no_judge_model": 400,
  "publish.tests_failed": 409,
  "publish.no_tests": 409,
};

/** A tests error as the API answers it: unknown things 404, conflicts 409, bad input 400; details kept. */
export function asApiError(e: unknown): unknown {
  if (e instanceof AppTestError || e instanceof TestGateError)
    return new ApiError(STATUS[e.code] ?? 400, e.code, e.message, undefined, e.details);
  return e;
}

async function answering<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw asApiError(e);
  }
}

/** The app's tests on the server's database and services; a judge when the body names a model. */
export function appTestsFor(deps: ServerDeps, judgeModel?: unknown): AppTests {
  if (judgeModel !== undefined && (typeof judgeModel !== "string" || judgeModel === ""))
    throw new ApiError(400, "tests.bad_option", "judge_model must be a model name");
  if (judgeModel && !deps.services.llm)
    throw new ApiError(400, "llm.not_configured", "judge_model needs a configured model endpoint");
  return new AppTests({
    stores: deps.stores,
    services: deps.services,
    env: (appId) => deps.env.forRun(appId),
    judge: judgeModel && deps.services.llm ? rubricJudge(deps.services.llm, judgeModel as string) : undefined,
  });
}

const optInt = (v: unknown, field: string): number | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v))
    throw new ApiError(400, "tests.bad_option", `${field} must be an integer`, undefined, { field });
  return v;
};

function settingsRoutes(r: Hono, deps: ServerDeps): void {
  r.get("/:id/tests/settings", (c) =>
    answering(async () => c.json(await appTestsFor(deps).settings(c.req.param("id")))),
  );
  r.put("/:id/tests/settings", async (c) => {
    const b = await readJson(c);
    if (b.require_pass !== undefined && typeof b.require_pass !== "boolean")
      throw new ApiError(400, "tests.bad_option", "require_pass must be true or false");
    if (b.min_pass_hat_k !== undefined && typeof b.min_pass_hat_k !== "number")
      throw new ApiError(400, "tests.bad_option", "min_pass_hat_k must be a number from 0 to 1");
    return answering(async () =>
      c.json(
        await appTestsFor(deps).setSettings(c.req.param("id"), {
          ...(b.require_pass !== undefined ? { requirePass: b.require_pass as boolean } : {}),
          ...(b.k !== undefined ? { k: optInt(b.k, "k")! } : {}),
          ...(b.min_pass_hat_k !== undefined ? { minPassHatK: b.min_pass_hat_k as number } : {}),
        }),
      ),
    );
  });
  r.get("/:id/tests/overrides", (c) =>
    answering(async () => c.json({ overrides: await appTestsFor(deps).overrides(c.req.param("id")) })),
  );
}

function fileRoutes(r: Hono, deps: ServerDeps): void {
  r.get("/:id/tests/export", (c) =>
    answering(async () => {
      if (!deps.services.files) throw new ApiError(409, "files.not_configured", "the server has no file store");
      const text = await appTestsFor(deps).exportFile(c.req.param("id"), deps.services.files);
      return c.body(text, 200, { "content-type": "application/yaml; charset=utf-8" });
    }),
  );
  r.post("/:id/tests/import", async (c) => {
    const b = await readJson(c);
    if (typeof b.text !== "string") throw new ApiError(400, "tests.invalid_file", 'send the side file as {text: "…"}');
    if (!deps.services.files) throw new ApiError(409, "files.not_configured", "the server has no file store");
    const files = deps.services.files;
    return answering(async () =>
      c.json(await appTestsFor(deps).importFile(c.req.param("id"), b.text as string, "the uploaded test file", files)),
    );
  });
}

function runRoute(r: Hono, deps: ServerDeps): void {
  r.post("/:id/tests/run", async (c) => {
    const b = await readJson(c);
    if (b.draft !== undefined && typeof b.draft !== "boolean")
      throw new ApiError(400, "tests.bad_option", "draft must be true or false");
    const report = await answering(() =>
      appTestsFor(deps, b.judge_model).run(c.req.param("id"), {
        version: optInt(b.version, "version"),
        draft: b.draft === true,
        k: optInt(b.k, "k"),
        concurrency: optInt(b.concurrency, "concurrency"),
        replay: b.replay === true,
      }),
    );
    if (c.req.query("format") === "markdown")
      return c.body(reportMarkdown(report), 200, { "content-type": "text/markdown; charset=utf-8" });
    return c.json(report);
  });
}

/** `/api/apps/:id/tests…`: cases (from runs too), settings (the publish gate), runs of the tests, side files. */
export function appTestRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  settingsRoutes(r, deps);
  fileRoutes(r, deps);
  runRoute(r, deps);
  r.get("/:id/tests", (c) => answering(async () => c.json({ cases: await appTestsFor(deps).list(c.req.param("id")) })));
  r.post("/:id/tests", async (c) => {
    const b = await readJson(c);
    const t = appTestsFor(deps);
    const id = c.req.param("id");
    if (b.from_run !== undefined) {
      if (typeof b.from_run !== "string") throw new ApiError(400, "tests.bad_option", "from_run must be a run id");
      const name = typeof b.name === "string" ? b.name : undefined;
      return answering(async () => c.json(await t.addFromRun(id, b.from_run as string, name), 201));
    }
    return answering(async () => c.json(await t.add(id, b), 201));
  });
  r.get("/:id/tests/:caseId", (c) =>
    answering(async () => c.json(await appTestsFor(deps).get(c.req.param("id"), c.req.param("caseId")))),
  );
  r.put("/:id/tests/:caseId", async (c) => {
    const b = await readJson(c);
    return answering(async () => c.json(await appTestsFor(deps).update(c.req.param("id"), c.req.param("caseId"), b)));
  });
  r.delete("/:id/tests/:caseId", (c) =>
    answering(async () => {
      await appTestsFor(deps).remove(c.req.param("id"), c.req.param("caseId"));
      return c.body(null, 204);
    }),
  );
  return r;
}
