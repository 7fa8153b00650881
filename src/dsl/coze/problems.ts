import type { WorkflowNode } from "../../ir/workflow.js";
import { CozeExportError, type CozeProblem, Unsupported } from "./errors.js";

/** What one export found Coze cannot express, collected so that one run names every problem, not just the first. */
export class ExportProblems {
  private readonly list: CozeProblem[] = [];

  fail(node: WorkflowNode | undefined, reason: string): void {
    const nodeId = node?.id ?? "";
    if (this.list.some((p) => p.nodeId === nodeId && p.reason === reason)) return;
    this.list.push({ nodeId, nodeType: node?.type ?? "", title: node?.title ?? "", reason });
  }

  /** `fn`'s result, or undefined when it throws Unsupported, which is then recorded against `node`. */
  attempt<T>(node: WorkflowNode, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      if (e instanceof Unsupported) {
        this.fail(node, e.reason);
        return undefined;
      }
      throw e;
    }
  }

  /** Throws `coze.unsupported_node` listing them all, if any was found. */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const lines = this.list.map(
      (p) => `  - ${p.nodeId ? `${p.nodeType} node "${p.title || p.nodeId}" (${p.nodeId})` : "workflow"}: ${p.reason}`,
    );
    throw new CozeExportError(
      "coze.unsupported_node",
      `the workflow cannot be exported to Coze without changing what it does:\n${lines.join("\n")}`,
      this.list,
    );
  }
}
