import type { Diagnostic } from "../ir/diagnostics.js";
import type { Workflow } from "../ir/workflow.js";

/** The command that sets a secret, as every warning about an unset one names it. */
export const setSecretCommand = (appId: string, name: string) => `weft env set ${appId} ${name} --secret`;

/** Whether a node's config reads env.NAME: a `{{#env.NAME#}}` template or a ["env", "NAME"] selector. */
function reads(config: unknown, name: string): boolean {
  const text = JSON.stringify(config ?? {});
  return text.includes(`#env.${name}#`) || text.includes(`["env","${name}"`);
}

/**
 * Warnings for declared secrets with no stored value: one per node that reads one (it would get an empty
 * string), or one for the app when no node reads it. Each names the command that sets it.
 */
export function unsetSecretDiagnostics(appId: string, wf: Workflow, unset: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const name of unset) {
    const how = `set it with \`${setSecretCommand(appId, name)}\` (value on stdin) or in the studio's Environment panel`;
    const readers = wf.nodes.filter((n) => reads(n.config, name));
    for (const n of readers)
      out.push({
        code: "env.secret_unset",
        severity: "warning",
        nodeId: n.id,
        message: `reads the secret env.${name}, which has no value (secrets are not imported or exported); ${how}`,
      });
    if (readers.length === 0)
      out.push({
        code: "env.secret_unset",
        severity: "warning",
        message: `the secret env.${name} has no value (secrets are not imported or exported); ${how}`,
      });
  }
  return out;
}
