/**
 * Regression on import (issue 34 item 5): an app imported with its test side file gets the file's cases and
 * runs them at once on the imported version, so a Dify app that came with tests says on arrival whether it
 * still passes them here. One implementation for `weft apps import` and POST /api/apps/import.
 */
import type { FileService } from "../ir/services.js";
import { failureLine } from "./report.js";
import type { TestReport } from "./runner.js";
import type { AppTests } from "./service.js";

export interface ImportRegression {
  added: number;
  replaced: number;
  passed: number;
  failed: number;
  /** "tests: 3/4 pass on version 1: case 'refund' fails at node 'Classify': …" */
  line: string;
  report: TestReport;
}

export async function importWithTests(
  tests: AppTests,
  appId: string,
  sideFile: string,
  where: string,
  files: FileService,
): Promise<ImportRegression> {
  const { added, replaced } = await tests.importFile(appId, sideFile, where, files);
  const report = await tests.run(appId);
  const on = report.target.kind === "version" ? ` on version ${report.target.version}` : "";
  const failing = report.cases.filter((c) => !c.pass).map(failureLine);
  const line = [`tests: ${report.passed}/${report.passed + report.failed} pass${on}`, ...failing].join(": ");
  return { added, replaced, passed: report.passed, failed: report.failed, line, report };
}
