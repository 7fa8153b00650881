import type { Row } from "../csv.js";
import type { Domain, ToolBinding } from "../dataset.js";
import type { EnvOptions } from "../options.js";

/** What of the tool environment a rule may use: its clock, its seeded random numbers and its options. */
export interface RuleEnv {
  now: () => Date;
  random: () => number;
  readonly options: EnvOptions;
}

export interface RuleCtx {
  env: RuleEnv;
  domain: Domain;
  tool: string;
  args: Record<string, unknown>;
  binding: ToolBinding | undefined;
  /** Runs the declarative binding (lookup/scalar/constant) for this call. */
  generic(): unknown;
  fail(message: string): never;
  /** Rows whose column equals each given value (pandas-typed compare). */
  rowsWhere(match: Record<string, unknown>): Row[];
}
export type RuleHandler = (ctx: RuleCtx) => unknown;
