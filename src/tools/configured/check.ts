/**
 * Which tools a workflow uses and whether anything serves them: for `weft tools check`, and for the
 * validation-time `tool.unserved` warning (the run-time error is `tool.not_configured`, same text).
 */
import type { Diagnostic } from "../../ir/diagnostics.js";
import type { Workflow } from "../../ir/workflow.js";
import type { ConfiguredToolService } from "./service.js";
import { unservedMessage } from "./snippet.js";

export interface ToolUse {
  nodeId: string;
  title: string;
  field: string;
  providerId: string;
  providerType?: string;
  toolName: string;
}

/** Tool nodes, and the tools agent nodes are given (agent_parameters.tools). */
export function toolUses(wf: Workflow): ToolUse[] {
  const out: ToolUse[] = [];
  for (const n of wf.nodes) {
    const c = n.config as Record<string, any>;
    if (n.type === "tool" && typeof c.provider_id === "string" && typeof c.tool_name === "string") {
      out.push({
        nodeId: n.id,
        title: n.title,
        field: "provider_id",
        providerId: c.provider_id,
        providerType: c.provider_type ?? "builtin",
        toolName: c.tool_name,
      });
    }
    if (n.type === "agent") {
      const list = c.agent_parameters?.tools?.value;
      if (!Array.isArray(list)) continue;
      list.forEach((t: Record<string, any>, i: number) => {
        if (t && t.enabled !== false && typeof t.tool_name === "string") {
          out.push({
            nodeId: n.id,
            title: n.title,
            field: `agent_parameters.tools.value[${i}]`,
            providerId: String(t.provider_name ?? ""),
            providerType: t.type ?? "builtin",
            toolName: t.tool_name,
          });
        }
      });
    }
  }
  return out;
}

/** `tool.unserved` warnings for every use nothing configured or built in serves (nothing is contacted). */
export async function unservedDiagnostics(
  wf: Workflow,
  tools: { serves(providerId: string, toolName: string): unknown } | undefined,
): Promise<Diagnostic[]> {
  const unserved: ToolUse[] = [];
  for (const u of toolUses(wf)) if (!(await tools?.serves(u.providerId, u.toolName))) unserved.push(u);
  return unserved.map((u) => ({
    code: "tool.unserved",
    severity: "warning" as const,
    nodeId: u.nodeId,
    field: u.field,
    message: unservedMessage(u, `tool ${u.providerId}/${u.toolName} of node "${u.title || u.nodeId}"`),
  }));
}

export interface ToolCheck extends ToolUse {
  status: "builtin" | "configured" | "unserved" | "broken";
  /** For configured tools: the provider and tool that serve it; for unserved/broken: why, and what to write. */
  servedBy?: string;
  message?: string;
}

/** Every use checked, configured ones by asking their provider whether the tool exists. */
export async function checkToolUses(wf: Workflow, tools: ConfiguredToolService): Promise<ToolCheck[]> {
  const out: ToolCheck[] = [];
  for (const u of toolUses(wf)) {
    const served = await tools.serves(u.providerId, u.toolName);
    if (!served) {
      out.push({ ...u, status: "unserved", message: unservedMessage(u) });
      continue;
    }
    if (served.by === "builtin") {
      out.push({ ...u, status: "builtin" });
      continue;
    }
    const r = served.route;
    const servedBy = `${r.provider.kind}:${r.provider.id}/${r.tool}`;
    try {
      const listed = await r.provider.tools();
      const tool = listed.find((t) => t.name === r.tool);
      if (tool?.unusable) out.push({ ...u, status: "broken", servedBy, message: tool.unusable });
      else if (tool) out.push({ ...u, status: "configured", servedBy });
      else
        out.push({
          ...u,
          status: "broken",
          servedBy,
          message: `tools.${r.provider.kind}.${r.provider.id} has no tool "${r.tool}"; it serves: ${listed.map((t) => t.name).join(", ") || "nothing"}`,
        });
    } catch (e) {
      out.push({ ...u, status: "broken", servedBy, message: (e as Error)?.message ?? String(e) });
    }
  }
  return out;
}
