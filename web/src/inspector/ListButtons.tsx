import { Plus, Trash2 } from "lucide-react";
import type { ReactNode } from "react";

/** The bin beside a row of a list editor: removes that row. */
export function RemoveButton({ title = "Remove", onClick }: { title?: string; onClick: () => void }) {
  return (
    <button type="button" className="icon-btn" title={title} onClick={onClick}>
      <Trash2 size={14} />
    </button>
  );
}

/** The "+" link under a list editor: appends a row. */
export function AddButton({
  onClick,
  testId,
  children,
}: {
  onClick: () => void;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <button type="button" className="link-btn" data-testid={testId} onClick={onClick}>
      <Plus size={13} /> {children}
    </button>
  );
}
