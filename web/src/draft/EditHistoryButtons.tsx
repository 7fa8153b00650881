import { Redo2, Undo2 } from "lucide-react";
import { useStore } from "../store";

/** Undo / Redo of canvas and inspector edits (Ctrl+Z, Shift+Ctrl+Z); AI changes have their own Undo in Versions. */
export function EditHistoryButtons({ disabled }: { disabled: boolean }) {
  const canUndo = useStore((s) => s.history.past.length > 0);
  const canRedo = useStore((s) => s.history.future.length > 0);
  const { undoEdit, redoEdit } = useStore.getState();
  return (
    <span className="edit-history">
      <button
        type="button"
        data-testid="edit-undo"
        aria-label="Undo"
        title="Undo the last edit (Ctrl+Z). An applied AI change is not an edit here: Versions has its Undo"
        disabled={disabled || !canUndo}
        onClick={undoEdit}
      >
        <Undo2 size={15} />
      </button>
      <button
        type="button"
        data-testid="edit-redo"
        aria-label="Redo"
        title="Redo (Shift+Ctrl+Z)"
        disabled={disabled || !canRedo}
        onClick={redoEdit}
      >
        <Redo2 size={15} />
      </button>
    </span>
  );
}
