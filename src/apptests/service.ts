/**
 * An app's tests, one implementation for the CLI and the HTTP API: cases (made, from runs, edited, side
 * files), settings, and test runs against a version, the draft, or any workflow of the app (a proposal).
 */
import type { RunEnv } from "../engine/run.js";
import type { ResolveJudgeFn } from "../eval/metrics/resolve.js";
import type { ExecServices, FileService } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { AppTestSettings, GateOverrideRecord, TestCaseRecord } from "../store/app-tests.js";
import type { Stores } from "../store/stores.js";
import { newId } from "../util/ids.js";
import { parseCase } from "./case.js";
import { AppTestError } from "./errors.js";
import { captureRun } from "./from-run.js";
import { ReplayCacheLlm } from "./replay-cache.js";
import { runCases, type TestReport, type TestTarget } from "./runner.js";
import { exportSideFile, readSideFile } from "./side-file.js";

export interface AppTestsDeps {
  stores: Stores;
  services: Partial<ExecServices>;
  /** The app's environment values for its runs (secrets opened). */
  env?: (appId: string) => Promise<RunEnv>;
  judge?: ResolveJudgeFn;
}

export interface RunOptions {
  /** A version number; default the published version (else the latest). */
  version?: number;
  draft?: boolean;
  k?: number;
  concurrency?: number;
  /** Answer model calls from recorded answers where the request is unchanged (recording the others). */
  replay?: boolean;
}

export const DEFAULT_SETTINGS = { requirePass: false, k: 1, minPassHatK: 1 } as const;

export class AppTests {
  constructor(private readonly deps: AppTestsDeps) {}

  private get store() {
    return this.deps.stores.appTests;
  }

  async app(appId: string) {
    const app = await this.deps.stores.apps.getApp(appId);
    if (!app) throw new AppTestError("app.not_found", `no app with id ${appId} (see \`weft apps list\`)`, { appId });
    return app;
  }

  async list(appId: string): Promise<TestCaseRecord[]> {
    await this.app(appId);
    return this.store.listCases(appId);
  }

  async get(appId: string, id: string): Promise<TestCaseRecord> {
    const c = await this.store.getCase(appId, id);
    if (!c) throw new AppTestError("tests.case_not_found", `app ${appId} has no test case ${id}`, { appId, id });
    return c;
  }

  async add(appId: string, raw: unknown): Promise<TestCaseRecord> {
    await this.app(appId);
    const c = parseCase(raw, `for app ${appId}`);
    const now = Date.now();
    const rec: TestCaseRecord = { ...c, id: c.id ?? newId(), appId, createdAt: now, updatedAt: now };
    if (!(await this.store.addCase(rec)))
      throw new AppTestError("tests.case_exists", `app ${appId} already has a test case ${rec.id}`, {
        appId,
        id: rec.id,
      });
    return rec;
  }

  async addFromRun(appId: string, runId: string, name?: string): Promise<TestCaseRecord> {
    await this.app(appId);
    const captured = await captureRun(this.deps.stores.runs, appId, runId);
    return this.add(appId, { name: name ?? `from run ${runId}`, sourceRunId: runId, ...captured });
  }

  async update(appId: string, id: string, raw: unknown): Promise<TestCaseRecord> {
    const had = await this.get(appId, id);
    const c = parseCase({ ...(raw as object), id }, `${id} of app ${appId}`);
    const rec: TestCaseRecord = { ...c, id, appId, createdAt: had.createdAt, updatedAt: Date.now() };
    await this.store.updateCase(rec);
    return rec;
  }

  async remove(appId: string, id: string): Promise<void> {
    if (!(await this.store.deleteCase(appId, id)))
      throw new AppTestError("tests.case_not_found", `app ${appId} has no test case ${id}`, { appId, id });
  }

  async settings(appId: string): Promise<AppTestSettings> {
    await this.app(appId);
    return (await this.store.settings(appId)) ?? { appId, ...DEFAULT_SETTINGS, updatedAt: 0 };
  }

  async setSettings(
    appId: string,
    patch: Partial<Omit<AppTestSettings, "appId" | "updatedAt">>,
  ): Promise<AppTestSettings> {
    const s = { ...(await this.settings(appId)), ...patch, appId, updatedAt: Date.now() };
    if (!Number.isInteger(s.k) || s.k < 1 || s.k > 100)
      throw new AppTestError("tests.bad_option", `k must be an integer from 1 to 100, got ${s.k}`, { field: "k" });
    if (!(s.minPassHatK >= 0 && s.minPassHatK <= 1))
      throw new AppTestError("tests.bad_option", `min_pass_hat_k must be from 0 to 1, got ${s.minPassHatK}`, {
        field: "min_pass_hat_k",
      });
    await this.store.putSettings(s);
    return s;
  }

  async recordOverrideOf(o: GateOverrideRecord): Promise<void> {
    await this.store.recordOverride(o);
  }

  async overrides(appId: string): Promise<GateOverrideRecord[]> {
    await this.app(appId);
    return this.store.overrides(appId);
  }

  /** The workflow a run of the tests means: `--version N`, `--draft`, or the published (else latest) version. */
  async target(
    appId: string,
    o: Pick<RunOptions, "version" | "draft">,
  ): Promise<{ workflow: Workflow; target: TestTarget }> {
    await this.app(appId);
    const apps = this.deps.stores.apps;
    if (o.draft) {
      const d = await apps.draft(appId);
      if (!d) throw new AppTestError("tests.no_draft", `app ${appId} has no draft`, { appId });
      return { workflow: d.workflow, target: { kind: "draft", revision: d.revision } };
    }
    const v =
      o.version !== undefined
        ? await apps.version(appId, o.version)
        : ((await apps.published(appId)) ?? (await apps.current(appId)));
    if (!v)
      throw new AppTestError(
        "tests.no_version",
        o.version !== undefined ? `app ${appId} has no version ${o.version}` : `app ${appId} has no version`,
        { appId, version: o.version },
      );
    return { workflow: v.workflow, target: { kind: "version", version: v.version } };
  }

  async run(appId: string, o: RunOptions = {}): Promise<TestReport> {
    const { workflow, target } = await this.target(appId, o);
    return this.runOn(appId, workflow, target, o);
  }

  /** Every case of the app against `workflow` (a proposal's, a draft's). */
  async runOn(appId: string, workflow: Workflow, target: TestTarget, o: RunOptions = {}): Promise<TestReport> {
    const cases = await this.list(appId);
    if (cases.length === 0)
      throw new AppTestError(
        "tests.no_cases",
        `app ${appId} has no test cases: add one with \`weft tests add ${appId} --from-run RUN_ID\` or POST /api/apps/${appId}/tests`,
        { appId },
      );
    let services = this.deps.services;
    let cache: ReplayCacheLlm | undefined;
    if (o.replay && services.llm) {
      cache = new ReplayCacheLlm(services.llm, this.store);
      services = { ...services, llm: cache };
    }
    const report = await runCases(workflow, cases, {
      appId,
      target,
      services,
      store: this.deps.stores.runs,
      runLog: this.deps.stores.runLog,
      env: this.deps.env ? await this.deps.env(appId) : undefined,
      judge: this.deps.judge,
      k: o.k,
      concurrency: o.concurrency,
    });
    return cache ? { ...report, modelCalls: { cached: cache.cached, live: cache.live } } : report;
  }

  async exportFile(appId: string, files: FileService): Promise<string> {
    const app = await this.app(appId);
    return exportSideFile(app.name, await this.store.listCases(appId), await this.store.settings(appId), files);
  }

  /** Cases of the file are added (a case whose id the app has is replaced); its settings, when present, too. */
  async importFile(
    appId: string,
    text: string,
    where: string,
    files: FileService,
  ): Promise<{ added: number; replaced: number }> {
    await this.app(appId);
    const read = await readSideFile(text, where, files);
    let added = 0;
    let replaced = 0;
    for (const c of read.cases) {
      if (c.id && (await this.store.getCase(appId, c.id))) {
        await this.update(appId, c.id, c);
        replaced++;
      } else {
        await this.add(appId, c);
        added++;
      }
    }
    if (read.settings) await this.setSettings(appId, read.settings);
    return { added, replaced };
  }
}
