/** App tests as the API sends them (src/store/app-tests.ts, src/apptests/runner.ts). */
export type CheckKind = "exact" | "contains" | "regex" | "json_schema" | "number" | "file_type";

export type OutputCheck =
  | { output: string; check: "exact"; value: unknown }
  | { output: string; check: "contains"; value: string }
  | { output: string; check: "regex"; pattern: string; flags?: string }
  | { output: string; check: "json_schema"; schema: Record<string, unknown> }
  | { output: string; check: "number"; value: number; tolerance: number }
  | { output: string; check: "file_type"; extension?: string; mimeType?: string; fileType?: string };

export interface TestCase {
  id: string;
  appId: string;
  name: string;
  inputs: Record<string, unknown>;
  sys?: Record<string, unknown>;
  expect: OutputCheck[];
  judge?: { rubric: string; reference?: string };
  sourceRunId?: string;
  createdAt: number;
  updatedAt: number;
}

/** What PUT and POST take: the case without what the server keeps (ids, times). */
export type CaseBody = Pick<TestCase, "name" | "inputs" | "sys" | "expect" | "judge" | "sourceRunId">;

export interface CaseFailure {
  kind: "error" | "status" | "check" | "judge";
  message: string;
  nodeId?: string;
  nodeTitle?: string;
  output?: string;
  expected?: string;
  got?: string;
}

export interface TrialResult {
  trial: number;
  pass: boolean;
  runId: string;
  status: string;
  ms: number;
  failure?: CaseFailure;
}

export interface CaseResult {
  id: string;
  name: string;
  pass: boolean;
  passes: number;
  trials: TrialResult[];
  failure?: CaseFailure;
}

export interface TestReport {
  appId: string;
  target: { kind: "version" | "draft" | "proposal"; version?: number; revision?: number };
  k: number;
  passed: number;
  failed: number;
  passHatK: number;
  curve: number[];
  cases: CaseResult[];
  ms: number;
  modelCalls?: { cached: number; live: number };
}

export interface TestSettings {
  requirePass: boolean;
  k: number;
  minPassHatK: number;
}
