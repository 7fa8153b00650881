/**
 * An app's own test cases, its test settings (the publish gate), the gate overrides owners recorded, and the
 * model-answer cache test runs replay from. The shapes of a case's expectations are validated where cases are
 * made (src/apptests/case.ts); the store keeps them as given.
 */

/** How one output is checked. */
export type OutputCheck =
  | { output: string; check: "exact"; value: unknown }
  | { output: string; check: "contains"; value: string }
  | { output: string; check: "regex"; pattern: string; flags?: string }
  | { output: string; check: "json_schema"; schema: Record<string, unknown> }
  | { output: string; check: "number"; value: number; tolerance: number }
  | { output: string; check: "file_type"; extension?: string; mimeType?: string; fileType?: string };

/** What a case runs with and what it expects. */
export interface TestCaseSpec {
  /** Start inputs (files as Dify file values of the file store). */
  inputs: Record<string, unknown>;
  /** System values a chat app needs (`query`, `files`). */
  sys?: Record<string, unknown>;
  expect: OutputCheck[];
  /** An LLM judge's rubric for the outputs (the Chat2Workflow resolve judge, with this as the instruction). */
  judge?: { rubric: string; reference?: string };
}

export interface TestCaseRecord extends TestCaseSpec {
  id: string;
  appId: string;
  name: string;
  /** The run the case was made from, if any. */
  sourceRunId?: string;
  createdAt: number;
  updatedAt: number;
}

/** Per app: whether publishing needs its tests to pass, and the pass^k it needs with k repetitions. */
export interface AppTestSettings {
  appId: string;
  requirePass: boolean;
  /** Repetitions per case when the gate runs (pass^k over them); default 1. */
  k: number;
  /** The pass^k (k as above) publishing needs; 1 = every repetition of every case passes. */
  minPassHatK: number;
  updatedAt: number;
}

/** An owner publishing although the gate refused: who, why, and which cases failed. */
export interface GateOverrideRecord {
  id: string;
  appId: string;
  /** The version that was published. */
  version: number;
  reason: string;
  by: string;
  failing: string[];
  at: number;
}

export interface AppTestStore {
  /** Refused (false) when the app already has a case of that id. */
  addCase(rec: TestCaseRecord): Promise<boolean>;
  getCase(appId: string, id: string): Promise<TestCaseRecord | undefined>;
  /** Oldest first. */
  listCases(appId: string): Promise<TestCaseRecord[]>;
  /** Replaces the stored case of (appId, id); false when there is none. */
  updateCase(rec: TestCaseRecord): Promise<boolean>;
  deleteCase(appId: string, id: string): Promise<boolean>;
  settings(appId: string): Promise<AppTestSettings | undefined>;
  putSettings(s: AppTestSettings): Promise<void>;
  recordOverride(o: GateOverrideRecord): Promise<void>;
  /** Most recent first. */
  overrides(appId: string): Promise<GateOverrideRecord[]>;
  /** Cases, settings and overrides of a deleted app. */
  deleteApp(appId: string): Promise<void>;
  /** A recorded model answer, by the key src/apptests/replay-cache.ts computes. */
  cachedAnswer(key: string): Promise<unknown | undefined>;
  /** The first answer recorded under a key stays. */
  cacheAnswer(key: string, answer: unknown, at: number): Promise<void>;
}
