/** The app-tests routes (`/api/apps/:id/tests…`, src/server/routes/app-tests.ts) as the studio calls them. */
import { api } from "../api";
import type { CaseBody, TestCase, TestReport, TestSettings } from "./types";

const base = (appId: string) => `/api/apps/${encodeURIComponent(appId)}/tests`;

export const listCases = async (appId: string) => (await api<{ cases: TestCase[] }>(base(appId))).cases;

export const addCase = (appId: string, body: CaseBody) => api<TestCase>(base(appId), { json: body });

/** One click from a run: its inputs, and its outputs as exact checks to loosen. */
export const addCaseFromRun = (appId: string, runId: string, name?: string) =>
  api<TestCase>(base(appId), { json: { from_run: runId, ...(name ? { name } : {}) } });

export const updateCase = (appId: string, id: string, body: CaseBody) =>
  api<TestCase>(`${base(appId)}/${encodeURIComponent(id)}`, { method: "PUT", json: body });

export const deleteCase = (appId: string, id: string) =>
  api<unknown>(`${base(appId)}/${encodeURIComponent(id)}`, { method: "DELETE" });

export interface RunTarget {
  /** The draft, or a version number; neither: the published version (else the latest). */
  draft?: boolean;
  version?: number;
  k: number;
}

export const runTests = (appId: string, t: RunTarget) =>
  api<TestReport>(`${base(appId)}/run`, {
    json: { ...(t.draft ? { draft: true } : {}), ...(t.version !== undefined ? { version: t.version } : {}), k: t.k },
  });

export const getSettings = (appId: string) => api<TestSettings>(`${base(appId)}/settings`);

export const putSettings = (appId: string, s: TestSettings) =>
  api<TestSettings>(`${base(appId)}/settings`, {
    method: "PUT",
    json: { require_pass: s.requirePass, k: s.k, min_pass_hat_k: s.minPassHatK },
  });
