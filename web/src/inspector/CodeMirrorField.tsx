import { EditorState, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef } from "react";

/**
 * A CodeMirror 6 editor bound to a string value. Outside changes (another version, an undo) replace the
 * document; the editor's own typing is reported through `onChange` and not echoed back.
 */
export function CodeMirrorField({
  value,
  onChange,
  extensions,
  testId,
  className,
  onView,
}: {
  value: string;
  onChange: (v: string) => void;
  extensions: Extension[];
  testId?: string;
  className?: string;
  onView?: (v: EditorView | undefined) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const change = useRef(onChange);
  change.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: one editor per mount; value follows through the effect below, extensions by a new key at call sites
  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          ...extensions,
          EditorView.updateListener.of((u) => {
            if (u.docChanged) change.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    onView?.(v);
    return () => {
      onView?.(undefined);
      v.destroy();
    };
    // The extensions are fixed for the editor's life; a new set means a new editor (see `key` at call sites).
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return <div ref={host} className={`cm-field ${className ?? ""}`} data-testid={testId} />;
}
