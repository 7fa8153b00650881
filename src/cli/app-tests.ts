/** The CLI's way to an app's tests: the database and the configured services, open while a command uses them. */
import { rubricJudge } from "../apptests/judge.js";
import { AppTests, type AppTestsDeps } from "../apptests/service.js";
import { type BuiltServices, buildServices } from "../runtime/services.js";
import { AppEnv } from "../secrets/app-env.js";
import { KeyProvider, keyFilePath } from "../secrets/key.js";
import { openStores, type Stores } from "../store/open.js";
import { loadWeftConfig } from "./config.js";
import { CliError, EXIT } from "./output.js";

export interface Common {
  db?: string;
  config?: string;
}

/** Opens the database and the configured services (models, tools, files) for as long as `f` runs. */
export async function withAppTests<T>(
  opts: Common & { judgeModel?: string },
  f: (t: AppTests, s: Stores, services: BuiltServices, deps: AppTestsDeps) => Promise<T>,
): Promise<T> {
  const cfg = loadWeftConfig(opts.config);
  const db = opts.db ?? cfg.db;
  const stores = await openStores(db);
  let services: BuiltServices | undefined;
  try {
    services = await buildServices(cfg, { configPath: opts.config, knowledge: stores.knowledge });
    const judgeModel = opts.judgeModel ?? process.env.WEFT_JUDGE_MODEL;
    if (judgeModel && !services.llm)
      throw new CliError(
        "llm.not_configured",
        "--judge-model needs a model endpoint (weft.config.json llm)",
        EXIT.usage,
      );
    const env = new AppEnv(stores.env, stores.apps, new KeyProvider(keyFilePath(db, cfg.secretKeyFile)));
    const deps: AppTestsDeps = {
      stores,
      services,
      env: (appId) => env.forRun(appId),
      judge: judgeModel && services.llm ? rubricJudge(services.llm, judgeModel) : undefined,
    };
    return await f(new AppTests(deps), stores, services, deps);
  } finally {
    await services?.close();
    await stores.close();
  }
}
