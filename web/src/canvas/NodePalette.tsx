import { useMemo, useState } from "react";
import { useStore } from "../store";
import type { NodeTypeInfo } from "../types";
import { TypeIcon } from "./nodeLook";

/** The palette's sections, in Dify's order; a category not listed here goes last under its own name. */
const SECTIONS: Array<[string, string]> = [
  ["llm", "AI"],
  ["knowledge", "Knowledge"],
  ["logic", "Logic"],
  ["container", "Iteration & loop"],
  ["transform", "Transform"],
  ["tool", "Tools"],
  ["io", "Input & output"],
];

export const PALETTE_DRAG_TYPE = "application/x-weft-node-type";

function matches(t: NodeTypeInfo, q: string): boolean {
  const s = q.trim().toLowerCase();
  return !s || [t.label, t.type, t.purpose].some((x) => x.toLowerCase().includes(s));
}

/**
 * The node palette: search by name, type or purpose, grouped by category. Clicking an entry picks it; an entry
 * can also be dragged onto the canvas, which adds it where it is dropped.
 */
export function NodePalette({ onPick, onClose }: { onPick: (type: string) => void; onClose: () => void }) {
  const types = useStore((s) => s.nodeTypes);
  const [q, setQ] = useState("");
  const groups = useMemo(() => {
    const shown = types.filter((t) => !t.containerStart && matches(t, q));
    const known = new Set(SECTIONS.map(([c]) => c));
    const extra = [...new Set(shown.map((t) => t.category).filter((c) => !known.has(c)))].map((c): [string, string] => [
      c,
      c,
    ]);
    return [...SECTIONS, ...extra]
      .map(([c, name]) => ({ category: c, name, items: shown.filter((t) => t.category === c) }))
      .filter((g) => g.items.length);
  }, [types, q]);
  const first = groups[0]?.items[0];
  return (
    <div
      className="palette"
      data-testid="palette"
      role="dialog"
      aria-label="Add a node"
      onKeyDown={(e) => e.key === "Escape" && onClose()}
    >
      <input
        // biome-ignore lint/a11y/noAutofocus: the palette opens to type a node's name into
        autoFocus
        placeholder="Search nodes"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={(e) => e.key === "Enter" && first && onPick(first.type)}
        data-testid="palette-search"
        aria-label="Search nodes"
      />
      <div className="palette-groups">
        {groups.map((g) => (
          <section key={g.category} data-testid={`palette-group-${g.category}`}>
            <h4>{g.name}</h4>
            {g.items.map((t) => (
              <button
                type="button"
                key={t.type}
                className="palette-item"
                data-testid={`palette-item-${t.type}`}
                title={t.purpose}
                draggable
                onDragStart={(e) => {
                  e.dataTransfer.setData(PALETTE_DRAG_TYPE, t.type);
                  e.dataTransfer.effectAllowed = "copy";
                }}
                onClick={() => onPick(t.type)}
              >
                <TypeIcon type={t.type} category={t.category} size={13} />
                <span>{t.label}</span>
              </button>
            ))}
          </section>
        ))}
        {groups.length === 0 && (
          <p className="muted" data-testid="palette-empty">
            No node matches “{q}”.
          </p>
        )}
      </div>
    </div>
  );
}
