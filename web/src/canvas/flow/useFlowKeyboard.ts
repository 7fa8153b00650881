import { useEffect } from "react";
import { useStore } from "../../store";
import { copySelected, duplicateSelected, paste } from "../clipboard";

/**
 * Ctrl/⌘ + C, V, D: copy, paste, duplicate the selected node; Z / Shift+Z (or Y): undo, redo — not while
 * typing in a field, where the browser's own undo of the text applies.
 */
export function useFlowKeyboard(readOnly: boolean) {
  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (
        !(e.ctrlKey || e.metaKey) ||
        e.altKey ||
        (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))
      )
        return;
      const key = e.key.toLowerCase();
      if (key === "z" || key === "y") {
        e.preventDefault();
        if (key === "y" || e.shiftKey) useStore.getState().redoEdit();
        else useStore.getState().undoEdit();
        return;
      }
      // Text selected on the page is the user's to copy.
      if (window.getSelection()?.toString()) return;
      const done = key === "c" ? copySelected() : key === "v" ? paste() : key === "d" ? duplicateSelected() : false;
      if (done) e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [readOnly]);
}
