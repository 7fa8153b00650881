import { autocompletion, type CompletionContext } from "@codemirror/autocomplete";
import {
  placeholder as cmPlaceholder,
  Decoration,
  type DecorationSet,
  EditorView,
  MatchDecorator,
  ViewPlugin,
  type ViewUpdate,
  WidgetType,
} from "@codemirror/view";
import { minimalSetup } from "codemirror";
import { Braces } from "lucide-react";
import { useMemo, useRef, useState } from "react";
import { nodeTitle } from "../labels";
import { useStore } from "../store";
import type { AvailableValue, Workflow } from "../types";
import { CodeMirrorField } from "./CodeMirrorField";
import { useAvailable, VariableMenu } from "./VariablePicker";

const GLOBAL: Record<string, string> = { sys: "System", env: "Environment", conversation: "Conversation" };

/** A `{{#node.var#}}` reference drawn as a chip with the node's title; the text underneath stays exact. */
class RefChip extends WidgetType {
  constructor(
    readonly selector: string[],
    readonly label: string,
    readonly known: boolean,
  ) {
    super();
  }
  eq(o: RefChip) {
    return o.label === this.label && o.known === this.known && o.selector.join(".") === this.selector.join(".");
  }
  toDOM() {
    const el = document.createElement("span");
    el.className = `var-chip inline ${this.known ? "" : "missing"}`;
    el.dataset.testid = "ref-chip";
    el.dataset.selector = this.selector.join(".");
    el.title = `{{#${this.selector.join(".")}#}}`;
    el.textContent = `${this.label} / ${this.selector.slice(1).join(".")}`;
    return el;
  }
  ignoreEvent() {
    return false;
  }
}

function chipPlugin(getWf: () => Workflow | undefined) {
  const decorator = new MatchDecorator({
    regexp: /\{\{#([^#{}]+?)#\}\}/g,
    decoration: (m) => {
      const sel = m[1]!.split(".");
      const wf = getWf();
      const head = sel[0]!;
      const known = !!GLOBAL[head] || !!wf?.nodes.some((n) => n.id === head);
      return Decoration.replace({ widget: new RefChip(sel, GLOBAL[head] ?? nodeTitle(wf, head), known) });
    },
  });
  return ViewPlugin.fromClass(
    class {
      chips: DecorationSet;
      constructor(view: EditorView) {
        this.chips = decorator.createDeco(view);
      }
      update(u: ViewUpdate) {
        this.chips = decorator.updateDeco(u, this.chips);
      }
    },
    {
      decorations: (v) => v.chips,
      // A chip is deleted and skipped over as one unit.
      provide: (p) => EditorView.atomicRanges.of((view) => view.plugin(p)?.chips ?? Decoration.none),
    },
  );
}

/** Typing `{` or `/` offers the variables available at the node. */
function variableCompletion(getValues: () => AvailableValue[] | undefined, getWf: () => Workflow | undefined) {
  return autocompletion({
    override: [
      (ctx: CompletionContext) => {
        const m = ctx.matchBefore(/(\{\{?#?|(?:^|\s)\/)[\w.-]*$/);
        if (!m) return null;
        const values = getValues();
        if (!values?.length) return null;
        const from = m.text.startsWith("{") ? m.from : m.from + m.text.indexOf("/");
        return {
          from,
          filter: false,
          options: values
            .filter((v) => {
              const needle = m.text.replace(/^[\s{#/]+/, "").toLowerCase();
              return (
                !needle ||
                v.selector.join(".").toLowerCase().includes(needle) ||
                nodeTitle(getWf(), v.selector[0]).toLowerCase().includes(needle)
              );
            })
            .map((v) => ({
              label: `${GLOBAL[v.selector[0]!] ?? nodeTitle(getWf(), v.selector[0])} / ${v.selector.slice(1).join(".")}`,
              detail: v.type,
              apply: `{{#${v.selector.join(".")}#}}`,
            })),
        };
      },
    ],
  });
}

/**
 * A prompt or template text in Dify's `{{#node.var#}}` syntax, references shown as chips named by title.
 * Variables come from the analyser: the insert button lists them, `{` or `/` offers them inline.
 */
export function PromptEditor({
  nodeId,
  value,
  onChange,
  testId,
  placeholder,
}: {
  nodeId: string;
  value: string;
  onChange: (v: string) => void;
  testId?: string;
  placeholder?: string;
}) {
  const [menu, setMenu] = useState(false);
  const { values } = useAvailable(nodeId);
  const view = useRef<EditorView | undefined>(undefined);
  const valuesRef = useRef(values);
  valuesRef.current = values;
  const extensions = useMemo(() => {
    const getWf = () => useStore.getState().draft;
    return [
      minimalSetup,
      EditorView.lineWrapping,
      chipPlugin(getWf),
      variableCompletion(() => valuesRef.current, getWf),
      ...(placeholder ? [cmPlaceholder(placeholder)] : []),
    ];
  }, [placeholder]);
  const insert = (sel: string[]) => {
    const v = view.current;
    const text = `{{#${sel.join(".")}#}}`;
    if (v) {
      const { from, to } = v.state.selection.main;
      v.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
      v.focus();
    } else onChange(value + text);
    setMenu(false);
  };
  return (
    <div className="prompt-editor" data-testid={testId}>
      <CodeMirrorField
        value={value}
        onChange={onChange}
        extensions={extensions}
        className="prompt"
        onView={(v) => (view.current = v)}
      />
      <button
        type="button"
        className="insert-var"
        title="Insert a variable"
        data-testid="insert-variable"
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => setMenu(!menu)}
      >
        <Braces size={13} /> Variable
      </button>
      {menu && <VariableMenu nodeId={nodeId} onClose={() => setMenu(false)} onPick={insert} />}
    </div>
  );
}
