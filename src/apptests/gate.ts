/**
 * The publish gate: an app whose settings require its tests runs them on what is about to be published (the
 * draft, or the version being republished) and is refused, naming the failing cases, unless pass^k reaches the
 * threshold. An owner may publish anyway with a reason, which is recorded with the failing cases.
 */
import type { GateOverrideRecord } from "../store/app-tests.js";
import { newId } from "../util/ids.js";
import { AppTestError, TestGateError } from "./errors.js";
import { failureLine } from "./report.js";
import type { TestReport } from "./runner.js";
import type { AppTests } from "./service.js";

export interface GateOverride {
  reason: string;
  /** Who overrode: an API key id, `cli`. */
  by: string;
}

export interface GateOutcome {
  required: boolean;
  passed?: number;
  failed?: number;
  passHatK?: number;
  k?: number;
  failing?: string[];
  override?: GateOverrideRecord;
}

const summary = (r: TestReport) => ({ passed: r.passed, failed: r.failed, passHatK: r.passHatK, k: r.k });

async function gateReport(tests: AppTests, appId: string, what: { draft?: boolean; version?: number }, k: number) {
  try {
    return await tests.run(appId, { ...what, k });
  } catch (e) {
    if (e instanceof AppTestError && e.code === "tests.no_cases")
      throw new TestGateError(
        "publish.no_tests",
        `app ${appId} requires its tests to pass before publishing and has no test cases: add one (\`weft tests add ${appId} --from-run RUN_ID\`) or turn the requirement off (\`weft tests require ${appId} --off\`); nothing was published`,
        { appId },
      );
    throw e;
  }
}

/**
 * Publish through the gate: `publish` runs only when the tests pass (or an override is given); `version` says
 * which version publishing made, for the override record.
 */
export async function publishThroughGate<T>(
  tests: AppTests,
  appId: string,
  what: { draft?: boolean; version?: number },
  publish: () => Promise<T>,
  versionOf: (p: T) => number,
  override?: GateOverride,
): Promise<{ published: T; gate: GateOutcome }> {
  const settings = await tests.settings(appId);
  if (!settings.requirePass) return { published: await publish(), gate: { required: false } };
  if (override && override.reason.trim() === "")
    throw new AppTestError("tests.bad_option", "an override needs a reason (it is recorded)", { field: "reason" });
  const report = await gateReport(tests, appId, what, settings.k);
  const failing = report.cases.filter((c) => !c.pass);
  const ok = report.passHatK >= settings.minPassHatK - 1e-9;
  if (!ok && !override) {
    const total = report.cases.length;
    throw new TestGateError(
      "publish.tests_failed",
      `publishing refused: ${failing.length} of ${total} required test case(s) fail (pass^${report.k} = ${report.passHatK.toFixed(3)}, needs ${settings.minPassHatK}): ${failing.map(failureLine).join("; ")}; nothing was published (an owner may override with a reason)`,
      { appId, failing: failing.map((c) => c.name), ...summary(report) },
    );
  }
  const published = await publish();
  const gate: GateOutcome = { required: true, ...summary(report), failing: failing.map((c) => c.name) };
  if (ok) return { published, gate };
  const rec: GateOverrideRecord = {
    id: newId(),
    appId,
    version: versionOf(published),
    reason: override!.reason.trim(),
    by: override!.by,
    failing: failing.map((c) => c.name),
    at: Date.now(),
  };
  await tests.recordOverrideOf(rec);
  return { published, gate: { ...gate, override: rec } };
}
