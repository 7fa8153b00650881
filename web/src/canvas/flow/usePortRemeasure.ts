import { useUpdateNodeInternals } from "@xyflow/react";
import { useEffect } from "react";

/** Handles follow the ports; React Flow must re-measure a node whose ports changed, or its edges vanish. */
export function usePortRemeasure(ports: Record<string, string[]>) {
  const updateNodeInternals = useUpdateNodeInternals();
  const portsKey = JSON.stringify(ports);
  // `portsKey` stands for `ports`, compared by content: a new object with the same ports measures nothing.
  // biome-ignore lint/correctness/useExhaustiveDependencies: portsKey stands for ports, compared by content
  useEffect(() => {
    const ids = Object.keys(ports);
    if (ids.length) requestAnimationFrame(() => updateNodeInternals(ids));
  }, [portsKey, updateNodeInternals]);
}
