import type { Diagnostic } from "../ir/diagnostics.js";
import type { Workflow } from "../ir/workflow.js";
import type { AppEnv } from "../secrets/app-env.js";
import { setSecretCommand, unsetSecretDiagnostics } from "../secrets/diagnostics.js";

/**
 * After an import: secret values the file carried (a Dify export with secrets included) are sealed into the
 * app's env store; those still without a value are reported, one warning per secret (what the import dialog
 * and `weft apps import` show) and one per node that reads one.
 */
export async function settleImportedSecrets(
  env: AppEnv,
  appId: string,
  wf: Workflow,
  carried: Array<{ name: string; value: string }>,
): Promise<Diagnostic[]> {
  for (const s of carried) await env.set(appId, s.name, "secret", s.value);
  const unset = await env.unsetSecrets(appId, wf);
  const perSecret: Diagnostic[] = unset.map((name) => ({
    code: "env.secret_empty",
    severity: "warning",
    message: `the secret env.${name} was imported empty (Dify exports secrets blank); set it with \`${setSecretCommand(appId, name)}\` (value on stdin)`,
  }));
  return [...perSecret, ...unsetSecretDiagnostics(appId, wf, unset).filter((d) => d.nodeId !== undefined)];
}

/** Warnings on the nodes that read a secret of the app that has no value. */
export async function envDiagnostics(env: AppEnv, appId: string, wf: Workflow): Promise<Diagnostic[]> {
  return unsetSecretDiagnostics(appId, wf, await env.unsetSecrets(appId, wf));
}
