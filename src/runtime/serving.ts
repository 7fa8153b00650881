/**
 * What nothing here serves, found before running: tool nodes no configured or built-in tool serves
 * (`tool.unserved`) and knowledge-retrieval nodes naming knowledge bases that do not exist
 * (`knowledge.unserved`). Warnings, since Dify would import and show such apps; the run then fails at that
 * node with the same text. Nothing is contacted: configured tools are matched by configuration alone.
 */
import type { Diagnostic } from "../ir/diagnostics.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { KnowledgeStore } from "../store/knowledge.js";
import { unservedDiagnostics } from "../tools/configured/check.js";
import type { ConfiguredToolService } from "../tools/configured/service.js";

export async function servingDiagnostics(wf: Workflow, services: Partial<ExecServices>): Promise<Diagnostic[]> {
  // Without a tool service every tool node would fail, so every one is unserved.
  const tools = services.tools as Partial<Pick<ConfiguredToolService, "serves">> | undefined;
  const out = await unservedDiagnostics(
    wf,
    typeof tools?.serves === "function" ? (tools as Pick<ConfiguredToolService, "serves">) : undefined,
  );
  // KnowledgeBases and runtime/services' lazy StoreKnowledge both carry the store they serve from.
  const kb = services.knowledge as { store?: KnowledgeStore } | undefined;
  for (const n of wf.nodes) {
    if (n.type !== "knowledge-retrieval") continue;
    const ids = ((n.config as { dataset_ids?: unknown[] }).dataset_ids ?? []).map(String);
    const known = new Set(kb?.store && ids.length > 0 ? (await kb.store.describeBases(ids)).map((b) => b.id) : []);
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length === 0) continue;
    out.push({
      code: "knowledge.unserved",
      severity: "warning",
      nodeId: n.id,
      field: "dataset_ids",
      message: `knowledge base${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of node "${n.title || n.id}" ${missing.length > 1 ? "do" : "does"} not exist here; create ${missing.length > 1 ? "them" : "it"} with \`weft kb create NAME --id ${missing[0]}\` and \`weft kb add ${missing[0]} FILE…\` (or POST /api/knowledge)`,
    });
  }
  return out;
}
