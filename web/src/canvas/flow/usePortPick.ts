import { type RefObject, useCallback, useEffect, useState } from "react";
import type { PortPick } from "../PortInsert";

/** A port's "+" opens the palette beside it, in the canvas area's coordinates. */
export function usePortPick(wrapper: RefObject<HTMLDivElement | null>, viewNonce: number, readOnly: boolean) {
  const [portPick, setPortPick] = useState<PortPick>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: wrapper is a ref, read when the palette opens
  const openPortPalette = useCallback((id: string, port: string, button: HTMLElement) => {
    const area = wrapper.current?.getBoundingClientRect();
    const b = button.getBoundingClientRect();
    if (!area) return;
    setPortPick((p) =>
      p?.id === id && p.port === port ? undefined : { id, port, x: b.right - area.left + 6, y: b.top - area.top },
    );
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new view or a change of read-only mode closes the palette
  useEffect(() => setPortPick(undefined), [viewNonce, readOnly]);
  const closePortPalette = useCallback(() => setPortPick(undefined), []);
  return { portPick, openPortPalette, closePortPalette };
}
