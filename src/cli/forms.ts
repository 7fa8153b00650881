import type { PendingForm } from "../ir/services.js";

/** A waiting form in a few lines: where it waits, what it asks, and the command that answers it. */
export function describeForm(runId: string, f: PendingForm): string {
  const inputs = f.inputs.map((i) => `${i.output_variable_name} (${i.type})`).join(", ") || "none";
  const actions = f.actions.map((a) => a.id).join(" | ");
  const expires = f.expiresAt === null ? "never" : new Date(f.expiresAt).toISOString();
  const example = [
    `weft resume ${runId}`,
    ...(f.actions.length > 1 ? [`--action ${f.actions[0]?.id}`] : []),
    ...f.inputs.map((i) => `--input ${i.output_variable_name}=…`),
  ].join(" ");
  return [
    `waiting: "${f.nodeTitle || f.nodeId}" (node ${f.key}, form ${f.formId})`,
    ...f.content.split("\n").map((l) => `  | ${l}`),
    `  inputs: ${inputs}; actions: ${actions}; times out: ${expires}`,
    `  answer: ${example}`,
  ].join("\n");
}
