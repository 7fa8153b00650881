import { WeftError } from "../ir/errors.js";
import type { NodeTypeDef, NodeTypes } from "../ir/registry.js";

/** Two definitions claim one type name (`node.type_duplicate`) or one alias (`node.alias_duplicate`). */
export class NodeCatalogueError extends WeftError {}

/** An immutable set of node definitions, looked up by type or alias; built from an explicit list. */
export class NodeCatalogue implements NodeTypes {
  readonly #defs: readonly NodeTypeDef<any>[];
  readonly #byType = new Map<string, NodeTypeDef<any>>();
  readonly #byAlias = new Map<string, NodeTypeDef<any>>();

  constructor(defs: readonly NodeTypeDef<any>[]) {
    this.#defs = Object.freeze([...defs]);
    for (const def of defs) {
      if (this.#byType.has(def.type)) {
        throw new NodeCatalogueError("node.type_duplicate", `node type ${def.type} is defined twice`, {
          type: def.type,
        });
      }
      this.#byType.set(def.type, def);
    }
    for (const def of defs) for (const alias of def.aliases ?? []) this.#addAlias(alias, def);
  }

  #addAlias(alias: string, def: NodeTypeDef<any>): void {
    const holder = this.#byType.get(alias) ?? this.#byAlias.get(alias);
    if (holder) {
      throw new NodeCatalogueError(
        "node.alias_duplicate",
        `alias ${alias} of node type ${def.type} is already taken by ${holder.type}`,
        { alias, type: def.type, takenBy: holder.type },
      );
    }
    this.#byAlias.set(alias, def);
  }

  get(type: string): NodeTypeDef<any> | undefined {
    return this.#byType.get(type) ?? this.#byAlias.get(type);
  }

  all(): readonly NodeTypeDef<any>[] {
    return this.#defs;
  }

  /** This catalogue plus more definitions (a test's own node types); the same duplicate checks apply. */
  with(...defs: NodeTypeDef<any>[]): NodeCatalogue {
    return new NodeCatalogue([...this.#defs, ...defs]);
  }
}
