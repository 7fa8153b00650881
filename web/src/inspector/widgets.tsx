import { useEffect, useState } from "react";
import { api } from "../api";
import { CODE_LANGUAGES, CodeEditor } from "./CodeEditor";
import { AddButton, RemoveButton } from "./ListButtons";
import { PromptEditor } from "./PromptEditor";
import { VariablePicker } from "./VariablePicker";

/** Editors for the structured fields Dify nodes share; each edits one config value. */

type Any = Record<string, any>;
const arr = (v: unknown): Any[] => (Array.isArray(v) ? (v as Any[]) : []);

/** `[{variable, value_selector}]`: named inputs (code, template) or outputs (end), each bound to a variable. */
export function BindingList({
  nodeId,
  value,
  onChange,
  testId,
  nameLabel = "name",
}: {
  nodeId: string;
  value: unknown;
  onChange: (v: Any[]) => void;
  testId: string;
  nameLabel?: string;
}) {
  const rows = arr(value);
  const set = (i: number, patch: Any) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="binding-list" data-testid={testId}>
      {rows.map((r, i) => (
        <div className="binding-row" key={i}>
          <input
            className="binding-name"
            placeholder={nameLabel}
            value={String(r.variable ?? "")}
            onChange={(e) => set(i, { variable: e.target.value })}
            data-testid={`${testId}-${i}-name`}
          />
          <VariablePicker
            nodeId={nodeId}
            value={r.value_selector}
            onChange={(s) => set(i, { value_selector: s })}
            testId={`${testId}-${i}-var`}
          />
          <RemoveButton onClick={() => onChange(rows.filter((_, j) => j !== i))} />
        </div>
      ))}
      <AddButton onClick={() => onChange([...rows, { variable: `var_${rows.length + 1}`, value_selector: [] }])}>
        Add
      </AddButton>
    </div>
  );
}

const INPUT_TYPES = ["text-input", "paragraph", "select", "number", "checkbox", "file", "file-list", "json_object"];

/** The start node's input form: one row per input with its type, label, required flag and options. */
export function StartVariables({ value, onChange }: { value: unknown; onChange: (v: Any[]) => void }) {
  const rows = arr(value);
  const set = (i: number, patch: Any) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="start-vars" data-testid="start-variables">
      {rows.map((r, i) => (
        <div className="start-var" key={i}>
          <div className="row">
            <input
              placeholder="variable"
              value={String(r.variable ?? "")}
              onChange={(e) => set(i, { variable: e.target.value })}
            />
            <select value={String(r.type ?? "text-input")} onChange={(e) => set(i, { type: e.target.value })}>
              {[...new Set([...INPUT_TYPES, String(r.type ?? "text-input")])].map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
            <label className="check">
              <input
                type="checkbox"
                checked={r.required === true}
                onChange={(e) => set(i, { required: e.target.checked })}
              />{" "}
              required
            </label>
            <RemoveButton onClick={() => onChange(rows.filter((_, j) => j !== i))} />
          </div>
          <div className="row">
            <input
              placeholder="label shown in the run form"
              value={String(r.label ?? "")}
              onChange={(e) => set(i, { label: e.target.value })}
            />
            {r.type === "select" && (
              <input
                placeholder="options, comma separated"
                value={arr(r.options).join(", ")}
                onChange={(e) =>
                  set(i, {
                    options: e.target.value
                      .split(",")
                      .map((x) => x.trim())
                      .filter(Boolean),
                  })
                }
              />
            )}
            {(r.type === "text-input" || r.type === "paragraph") && (
              <input
                type="number"
                placeholder="max length"
                value={typeof r.max_length === "number" ? r.max_length : ""}
                onChange={(e) => set(i, { max_length: e.target.value === "" ? undefined : Number(e.target.value) })}
              />
            )}
          </div>
        </div>
      ))}
      <AddButton
        onClick={() =>
          onChange([...rows, { variable: `input_${rows.length + 1}`, label: "", type: "text-input", required: false }])
        }
      >
        Add input
      </AddButton>
    </div>
  );
}

const OUTPUT_TYPES = [
  "string",
  "number",
  "boolean",
  "object",
  "array[string]",
  "array[number]",
  "array[boolean]",
  "array[object]",
];

/** A code node's declared outputs: `{name: {type}}`. */
export function CodeOutputs({ value, onChange }: { value: unknown; onChange: (v: Any) => void }) {
  const entries = Object.entries((value && typeof value === "object" ? value : {}) as Any);
  const write = (es: Array<[string, Any]>) => onChange(Object.fromEntries(es));
  return (
    <div className="binding-list" data-testid="code-outputs">
      {entries.map(([name, spec], i) => (
        <div className="binding-row" key={i}>
          <input
            className="binding-name"
            value={name}
            onChange={(e) => write(entries.map((x, j) => (j === i ? [e.target.value, x[1]] : x)))}
          />
          <select
            value={String(spec?.type ?? "string")}
            onChange={(e) => write(entries.map((x, j) => (j === i ? [x[0], { ...x[1], type: e.target.value }] : x)))}
          >
            {[...new Set([...OUTPUT_TYPES, String(spec?.type ?? "string")])].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <RemoveButton onClick={() => write(entries.filter((_, j) => j !== i))} />
        </div>
      ))}
      <AddButton
        onClick={() => write([...entries, [`result_${entries.length + 1}`, { type: "string", children: null }]])}
      >
        Add output
      </AddButton>
    </div>
  );
}

/** Code with its language: the select and the editor live together, as in Dify. */
export function CodeWithLanguage({ config, onChange }: { config: Any; onChange: (patch: Any) => void }) {
  const lang = String(config.code_language ?? "python3");
  return (
    <div className="code-with-lang">
      <div className="code-head">
        <select data-testid="code-language" value={lang} onChange={(e) => onChange({ code_language: e.target.value })}>
          {[...new Set([...CODE_LANGUAGES.map((l) => l.id), lang])].map((id) => (
            <option key={id} value={id}>
              {CODE_LANGUAGES.find((l) => l.id === id)?.label ?? id}
            </option>
          ))}
        </select>
        <span className="muted small">defines main(…) returning the outputs below</span>
      </div>
      <CodeEditor
        value={String(config.code ?? "")}
        onChange={(code) => onChange({ code })}
        language={lang}
        testId="code-editor"
      />
    </div>
  );
}

/** Chat prompt messages (role + text each), or the single text of a completion prompt. */
export function PromptMessages({
  nodeId,
  value,
  onChange,
}: {
  nodeId: string;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  if (!Array.isArray(value)) {
    const v = (value ?? {}) as Any;
    return (
      <PromptEditor
        nodeId={nodeId}
        value={String(v.text ?? "")}
        onChange={(text) => onChange({ ...v, text })}
        testId="prompt-0"
      />
    );
  }
  const msgs = value as Any[];
  const set = (i: number, patch: Any) => onChange(msgs.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  return (
    <div className="prompt-messages" data-testid="prompt-messages">
      {msgs.map((m, i) => (
        <div className="prompt-message" key={m.id ?? i}>
          <div className="prompt-message-head">
            <select
              value={String(m.role ?? "user")}
              onChange={(e) => set(i, { role: e.target.value })}
              data-testid={`prompt-${i}-role`}
            >
              <option value="system">SYSTEM</option>
              <option value="user">USER</option>
              <option value="assistant">ASSISTANT</option>
            </select>
            <span className="spacer" />
            <RemoveButton title="Remove message" onClick={() => onChange(msgs.filter((_, j) => j !== i))} />
          </div>
          {m.edition_type === "jinja2" ? (
            <CodeEditor
              value={String(m.jinja2_text ?? "")}
              onChange={(t) => set(i, { jinja2_text: t })}
              language="jinja2"
            />
          ) : (
            <PromptEditor
              nodeId={nodeId}
              value={String(m.text ?? "")}
              onChange={(text) => set(i, { text })}
              testId={`prompt-${i}`}
              placeholder="Write the prompt; type { or / to insert a variable"
            />
          )}
        </div>
      ))}
      <AddButton onClick={() => onChange([...msgs, { role: msgs.length ? "user" : "system", text: "" }])}>
        Add message
      </AddButton>
    </div>
  );
}

/** A configured model as GET /api/models offers it: provider + name as a node writes them. */
interface ModelOption {
  provider: string;
  name: string;
  endpoint: string;
}
let modelOptions: Promise<ModelOption[]> | undefined;
const configuredModels = () =>
  (modelOptions ??= api<{ options?: ModelOption[] }>("/api/models").then(
    (m) => m.options ?? [],
    () => [],
  ));
const OTHER = "__other";
const optionKey = (o: { provider?: unknown; name?: unknown }) =>
  `${String(o.provider ?? "")}\u0000${String(o.name ?? "")}`;

/**
 * The model a node calls: a select of the configured models, with "other…" for a model the configuration does not
 * name (free text; the analyser view warns `model.not_configured`), mode and parameters.
 */
export function ModelField({ value, onChange }: { value: unknown; onChange: (v: Any) => void }) {
  const m = (value ?? {}) as Any;
  const params = (m.completion_params ?? {}) as Any;
  const [options, setOptions] = useState<ModelOption[]>([]);
  const [other, setOther] = useState(false);
  useEffect(() => {
    void configuredModels().then(setOptions);
  }, []);
  const setParam = (k: string, raw: string) => {
    const next = { ...params };
    if (raw === "") delete next[k];
    else next[k] = Number.isNaN(Number(raw)) ? raw : Number(raw);
    onChange({ ...m, completion_params: next });
  };
  const shown = [...new Set(["temperature", ...Object.keys(params)])];
  const known = options.some((o) => optionKey(o) === optionKey(m));
  const free = other || !known;
  const pick = (key: string) => {
    if (key === OTHER) return setOther(true);
    const o = options.find((x) => optionKey(x) === key);
    if (!o) return;
    setOther(false);
    onChange({ ...m, provider: o.provider, name: o.name });
  };
  return (
    <div className="model-field" data-testid="model-field">
      <div className="row">
        <select value={free ? OTHER : optionKey(m)} onChange={(e) => pick(e.target.value)} data-testid="model-select">
          {options.map((o) => (
            <option key={optionKey(o)} value={optionKey(o)}>
              {o.name} ({o.endpoint})
            </option>
          ))}
          <option value={OTHER}>other…</option>
        </select>
        <select value={String(m.mode ?? "chat")} onChange={(e) => onChange({ ...m, mode: e.target.value })}>
          <option value="chat">chat</option>
          <option value="completion">completion</option>
        </select>
      </div>
      {free && (
        <>
          <input
            placeholder="model name"
            value={String(m.name ?? "")}
            onChange={(e) => onChange({ ...m, name: e.target.value })}
            data-testid="model-name"
          />
          <input
            placeholder="provider (e.g. langgenius/openai/openai)"
            value={String(m.provider ?? "")}
            onChange={(e) => onChange({ ...m, provider: e.target.value })}
          />
        </>
      )}
      <div className="params">
        {shown.map((k) => (
          <label key={k} className="param">
            <span>{k.replace(/_/g, " ")}</span>
            <input
              value={params[k] === undefined ? "" : String(params[k])}
              onChange={(e) => setParam(k, e.target.value)}
            />
          </label>
        ))}
      </div>
    </div>
  );
}
