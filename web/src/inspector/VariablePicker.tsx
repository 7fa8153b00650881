import { ChevronDown, Variable, X } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { TypeIcon } from "../canvas/nodeLook";
import { nodeTitle } from "../labels";
import { useStore } from "../store";
import type { AvailableValue } from "../types";

const GROUPS: Record<string, string> = { sys: "System", env: "Environment", conversation: "Conversation" };

/** What the analyser says a node can read, fetched for the current draft. */
export function useAvailable(nodeId: string, active = true): { values?: AvailableValue[]; error?: string } {
  const draft = useStore((s) => s.draft);
  const [state, setState] = useState<{ values?: AvailableValue[]; error?: string }>({});
  useEffect(() => {
    if (!active || !draft) return;
    let live = true;
    // Typing changes the draft on every key; ask once the edits pause.
    const t = setTimeout(() => {
      useStore
        .getState()
        .availableAt(nodeId)
        .then(
          (values) => live && setState({ values }),
          (e) => live && setState({ error: String(e?.message ?? e) }),
        );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [draft, nodeId, active]);
  return state;
}

/** Close a popover on a click outside it or on Escape. */
function useDismiss(ref: React.RefObject<HTMLElement | null>, onClose: () => void) {
  useEffect(() => {
    const down = (e: MouseEvent) => ref.current && !ref.current.contains(e.target as Node) && onClose();
    const key = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    document.addEventListener("mousedown", down);
    document.addEventListener("keydown", key);
    return () => {
      document.removeEventListener("mousedown", down);
      document.removeEventListener("keydown", key);
    };
  }, [ref, onClose]);
}

/** The list of readable values, grouped by the node that produces them, with a search box. */
export function VariableMenu({
  nodeId,
  onPick,
  onClose,
  accept,
}: {
  nodeId: string;
  onPick: (sel: string[], v: AvailableValue) => void;
  onClose: () => void;
  accept?: (v: AvailableValue) => boolean;
}) {
  const { values, error } = useAvailable(nodeId);
  const draft = useStore((s) => s.draft);
  const types = useStore((s) => s.nodeTypes);
  const [q, setQ] = useState("");
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(ref, onClose);
  const groups = useMemo(() => {
    const out = new Map<string, { label: string; type?: string; items: AvailableValue[] }>();
    const needle = q.trim().toLowerCase();
    for (const v of values ?? []) {
      if (accept && !accept(v)) continue;
      const head = v.selector[0]!;
      const label = GROUPS[head] ?? nodeTitle(draft, head);
      const name = v.selector.slice(1).join(".");
      if (needle && !`${label} ${name}`.toLowerCase().includes(needle)) continue;
      const g = out.get(head) ?? {
        label,
        type: GROUPS[head] ? undefined : draft?.nodes.find((n) => n.id === head)?.type,
        items: [],
      };
      g.items.push(v);
      out.set(head, g);
    }
    return [...out.entries()];
  }, [values, q, draft, accept]);
  const category = (t?: string) => types.find((x) => x.type === t)?.category ?? "unknown";
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: stops the outside-press handler, not an interaction of its own
    <div className="var-menu" ref={ref} data-testid="var-menu" onMouseDown={(e) => e.stopPropagation()}>
      <input
        // biome-ignore lint/a11y/noAutofocus: the picker opens to type a variable's name into
        autoFocus
        className="var-search"
        placeholder="Search variables"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        data-testid="var-search"
      />
      {error && <div className="diag error">{error}</div>}
      {!values && !error && <div className="muted pad">Loading…</div>}
      {values && groups.length === 0 && (
        <div className="muted pad">
          No variable is available here{q ? ` matching "${q}"` : ""}: connect this node after the ones whose outputs it
          reads.
        </div>
      )}
      <div className="var-groups">
        {groups.map(([head, g]) => (
          <div key={head} className="var-group">
            <div className="var-group-head">
              {g.type ? <TypeIcon type={g.type} category={category(g.type)} size={11} /> : <Variable size={13} />}
              <span>{g.label}</span>
            </div>
            {g.items.map((v) => (
              <button
                type="button"
                key={v.selector.join(".")}
                className="var-option"
                data-testid="var-option"
                data-selector={v.selector.join(".")}
                onClick={() => onPick(v.selector, v)}
              >
                <span className="var-name">{v.selector.slice(1).join(".")}</span>
                <span className="var-type">{v.type}</span>
              </button>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}

/** A chip naming a selector by its node's title. */
export function VarChip({ selector, onClear }: { selector: string[]; onClear?: () => void }) {
  const draft = useStore((s) => s.draft);
  const types = useStore((s) => s.nodeTypes);
  const head = selector[0] ?? "";
  const node = draft?.nodes.find((n) => n.id === head);
  const missing = !GROUPS[head] && !node;
  return (
    <span className={`var-chip ${missing ? "missing" : ""}`} title={selector.join(".")}>
      {node ? (
        <TypeIcon type={node.type} category={types.find((t) => t.type === node.type)?.category ?? ""} size={10} />
      ) : (
        <Variable size={12} />
      )}
      <span className="var-chip-node">{GROUPS[head] ?? nodeTitle(draft, head)}</span>
      <span className="var-chip-sep">/</span>
      <span className="var-chip-var">{selector.slice(1).join(".")}</span>
      {onClear && (
        <X
          size={12}
          className="var-chip-x"
          onClick={(e) => {
            e.stopPropagation();
            onClear();
          }}
        />
      )}
    </span>
  );
}

/** A selector field: shows the chosen value by title and opens the list of values available at this node. */
export function VariablePicker({
  nodeId,
  value,
  onChange,
  testId,
  accept,
}: {
  nodeId: string;
  value: string[] | undefined;
  onChange: (v: string[]) => void;
  testId?: string;
  accept?: (v: AvailableValue) => boolean;
}) {
  const [open, setOpen] = useState(false);
  const has = Array.isArray(value) && value.length > 0;
  return (
    <div className="var-picker">
      <button
        type="button"
        className={`var-picker-btn ${has ? "" : "empty"}`}
        data-testid={testId ?? "var-picker"}
        onClick={() => setOpen(!open)}
      >
        {has ? <VarChip selector={value!} /> : <span className="muted">Choose a variable</span>}
        <ChevronDown size={14} className="var-caret" />
      </button>
      {open && (
        <VariableMenu
          nodeId={nodeId}
          accept={accept}
          onClose={() => setOpen(false)}
          onPick={(sel) => {
            onChange(sel);
            setOpen(false);
          }}
        />
      )}
    </div>
  );
}
