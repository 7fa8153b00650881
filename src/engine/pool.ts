import type { ReadResult } from "../ir/registry.js";

/**
 * The variable pool: node id → output name → value. A child pool (one iteration item) overlays its
 * parent so items never see each other's writes, while conversation variables stay shared through
 * the root, as Dify forwards those writes to the parent.
 */
export class VariablePool {
  private readonly local = new Map<string, Record<string, unknown>>();

  constructor(private readonly parent?: VariablePool) {}

  child(): VariablePool {
    return new VariablePool(this);
  }

  root(): VariablePool {
    return this.parent ? this.parent.root() : this;
  }

  set(nodeId: string, outputs: Record<string, unknown>): void {
    this.local.set(nodeId, { ...outputs });
  }

  setValue(nodeId: string, name: string, value: unknown): void {
    const cur = this.local.get(nodeId) ?? this.inherited(nodeId);
    this.local.set(nodeId, { ...(cur ?? {}), [name]: value });
  }

  delete(nodeId: string): void {
    this.local.delete(nodeId);
  }

  private inherited(nodeId: string): Record<string, unknown> | undefined {
    return this.local.get(nodeId) ?? this.parent?.inherited(nodeId);
  }

  has(nodeId: string): boolean {
    return this.inherited(nodeId) !== undefined;
  }

  outputsOf(nodeId: string): Record<string, unknown> | undefined {
    return this.inherited(nodeId);
  }

  read(selector: readonly string[]): ReadResult {
    if (selector.length < 2) return { found: false };
    const [head, name, ...path] = selector as [string, string, ...string[]];
    // Conversation variables live in the root so every frame shares one copy.
    const scope = head === "conversation" ? this.root().inherited(head) : this.inherited(head);
    if (!scope || !Object.hasOwn(scope, name)) return { found: false };
    let value: unknown = scope[name];
    for (const key of path) {
      if (value === null || value === undefined) return { found: true, value: null };
      if (typeof value === "object") {
        const obj = value as Record<string, unknown>;
        value =
          key === "name" && "filename" in obj && !("name" in obj)
            ? obj.filename
            : key === "url" && !("url" in obj)
              ? obj.remote_url
              : obj[key];
        if (value === undefined) value = null;
      } else {
        return { found: true, value: null };
      }
    }
    return { found: true, value };
  }

  write(selector: readonly string[], value: unknown): void {
    const [head, name] = selector as [string, string];
    if (head === "conversation") this.root().setValue(head, name, value);
    else this.setValue(head, name, value);
  }
}
