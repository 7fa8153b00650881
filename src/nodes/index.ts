import { NodeCatalogue } from "./catalogue.js";
import { loadAllNodeTypes } from "./registry.js";

/**
 * Every node type Weft knows, loaded, in the registry's order (./registry.ts lists them). For what reads every
 * type (the knowledge base, the studio palette, the server); a run loads only its workflow's types
 * (`loadNodeTypes`), so importing this module is what loads them all.
 */
export const nodeDefinitions: readonly NodeTypeDefAny[] = await loadAllNodeTypes();

export const nodeCatalogue = new NodeCatalogue(nodeDefinitions);

type NodeTypeDefAny = Awaited<ReturnType<typeof loadAllNodeTypes>>[number];

export { NodeCatalogue, NodeCatalogueError } from "./catalogue.js";
export { loadNodeTypes, NODE_TYPES, NodeRegistryError, type NodeTypeEntry, nodeTypesFor } from "./registry.js";
