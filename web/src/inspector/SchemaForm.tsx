import { useEffect, useState } from "react";
import { humanize } from "../labels";
import { useStore } from "../store";
import type { Diagnostic, JsonSchema } from "../types";
import { fieldLabel, kindOf } from "./fieldKind";
import { AddButton, RemoveButton } from "./ListButtons";
import { PromptEditor } from "./PromptEditor";
import { VariablePicker } from "./VariablePicker";

/** Fields every node carries that the form groups under "Advanced". */
export const ADVANCED = new Set([
  "desc",
  "version",
  "error_strategy",
  "default_value",
  "retry_config",
  "timeout_seconds",
  "gates",
]);
/** Editor bookkeeping that people never edit. */
export const HIDDEN = new Set(["selected", "isInIteration", "isInLoop", "iteration_id", "loop_id", "type", "title"]);

export interface FormCtx {
  nodeId: string;
  /** Config paths whose text is a Dify template (`{{#…#}}`): edited with chips. */
  templates: Set<string>;
  /** Choices for string fields the schema leaves open, by config path. */
  options?: Record<string, string[]>;
}

export function FieldDiags({ diags }: { diags: Diagnostic[] }) {
  const wf = useStore((s) => s.draft);
  return (
    <>
      {diags.map((d, i) => (
        <div key={i} className={`diag ${d.severity}`} data-testid="field-diag">
          {humanize(wf, d.message)}
        </div>
      ))}
    </>
  );
}

function JsonField({ value, onChange, testId }: { value: unknown; onChange: (v: unknown) => void; testId: string }) {
  const render = (v: unknown) => (v === undefined ? "" : JSON.stringify(v, null, 2));
  const [text, setText] = useState(render(value));
  const [bad, setBad] = useState<string>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows outside changes of value only; bad and render are read at that moment
  useEffect(() => {
    // Follow outside changes (a new version), but not while the text is mid-edit and invalid.
    if (!bad) setText(render(value));
  }, [value]);
  return (
    <>
      <textarea
        data-testid={testId}
        className={`json ${bad ? "bad" : ""}`}
        rows={Math.min(12, Math.max(2, text.split("\n").length))}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === "") {
            setBad(undefined);
            onChange(undefined);
            return;
          }
          try {
            const v = JSON.parse(e.target.value);
            setBad(undefined);
            onChange(v);
          } catch (err) {
            setBad((err as Error).message);
          }
        }}
      />
      {bad && <div className="field-error">invalid JSON: {bad}</div>}
    </>
  );
}

const pathDiags = (diags: Diagnostic[], path: string) =>
  diags.filter((d) => d.field === path || d.field?.startsWith(`${path}.`) || d.field?.startsWith(`${path}[`));

interface ValueInputProps {
  path: string;
  schema?: JsonSchema;
  value: unknown;
  onChange: (v: unknown) => void;
  diags: Diagnostic[];
  depth: number;
  ctx: FormCtx;
}

/** One input for one value, chosen from its schema. */
export function ValueInput({ path, schema, value, onChange, diags, depth, ctx }: ValueInputProps) {
  const choices = ctx.options?.[path];
  const k =
    choices && (value === undefined || typeof value === "string")
      ? ({ kind: "enum", options: [...new Set([...choices, ...(value ? [value] : [])])] } as const)
      : kindOf(schema);
  const id = `field-${path}`;
  // Some schemas type a selector as a plain string list; Dify's naming says what it is.
  const namedSelector =
    /(^|[._])(\w*_)?selector$/.test(path) &&
    (value === undefined || (Array.isArray(value) && value.every((x) => typeof x === "string")));
  if ((k.kind === "selector" || namedSelector) && (value === undefined || Array.isArray(value)))
    return <VariablePicker nodeId={ctx.nodeId} value={value as string[] | undefined} onChange={onChange} testId={id} />;
  if (
    k.kind === "object" &&
    depth < 3 &&
    (value === undefined || value === null || (typeof value === "object" && !Array.isArray(value)))
  )
    return (
      <SchemaForm
        schema={k.schema}
        value={(value as Record<string, unknown>) ?? {}}
        onChange={onChange}
        diagnostics={diags}
        path={path}
        depth={depth + 1}
        ctx={ctx}
      />
    );
  if (k.kind === "list" && depth < 3 && (value === undefined || value === null || Array.isArray(value)))
    return (
      <ListField
        path={path}
        item={k.item}
        value={(value as unknown[]) ?? []}
        onChange={onChange}
        diags={diags}
        depth={depth}
        ctx={ctx}
      />
    );
  if (k.kind === "boolean")
    return (
      <input
        id={id}
        data-testid={id}
        type="checkbox"
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  if (k.kind === "enum")
    return (
      <select
        id={id}
        data-testid={id}
        value={value === undefined || value === null ? "" : String(value)}
        onChange={(e) =>
          onChange(e.target.value === "" ? undefined : k.options.find((o) => String(o) === e.target.value))
        }
      >
        <option value="">—</option>
        {k.options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  if (k.kind === "number" || k.kind === "integer")
    return (
      <input
        id={id}
        data-testid={id}
        type="number"
        step={k.kind === "integer" ? 1 : "any"}
        value={typeof value === "number" ? value : ""}
        onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
      />
    );
  if (k.kind === "string" && (typeof value === "string" || value === undefined || value === null)) {
    const text = value ?? "";
    if (ctx.templates.has(path) || text.includes("{{#"))
      return <PromptEditor nodeId={ctx.nodeId} value={text} onChange={onChange} testId={id} />;
    const long = text.length > 60 || text.includes("\n");
    return long ? (
      <textarea
        id={id}
        data-testid={id}
        rows={Math.min(12, text.split("\n").length + 1)}
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
    ) : (
      <input id={id} data-testid={id} value={text} onChange={(e) => onChange(e.target.value)} />
    );
  }
  return <JsonField value={value} onChange={onChange} testId={id} />;
}

function blankOf(s: JsonSchema): unknown {
  const k = kindOf(s);
  if (k.kind === "object") return {};
  if (k.kind === "selector" || k.kind === "list") return [];
  if (k.kind === "number" || k.kind === "integer") return 0;
  if (k.kind === "boolean") return false;
  if (k.kind === "enum") return k.options[0];
  return "";
}

/** A list of items edited one by one, with add and remove. */
function ListField({
  path,
  item,
  value,
  onChange,
  diags,
  depth,
  ctx,
}: {
  path: string;
  item: JsonSchema;
  value: unknown[];
  onChange: (v: unknown[]) => void;
  diags: Diagnostic[];
  depth: number;
  ctx: FormCtx;
}) {
  return (
    <div className="list-field" data-testid={`field-${path}`}>
      {value.map((v, i) => (
        <div className="list-item" key={i}>
          <div className="list-item-body">
            <ValueInput
              path={`${path}[${i}]`}
              schema={item}
              value={v}
              onChange={(nv) => onChange(value.map((x, j) => (j === i ? nv : x)))}
              diags={pathDiags(diags, `${path}[${i}]`)}
              depth={depth + 1}
              ctx={ctx}
            />
          </div>
          <RemoveButton onClick={() => onChange(value.filter((_, j) => j !== i))} />
        </div>
      ))}
      <AddButton onClick={() => onChange([...value, blankOf(item)])}>Add</AddButton>
    </div>
  );
}

export function Field({ name, ...input }: ValueInputProps & { name: string }) {
  const { path, schema, diags, depth } = input;
  const k = kindOf(schema);
  const nested = (k.kind === "object" || k.kind === "list") && depth < 3;
  return (
    <div
      className={`field ${diags.length ? "field-has-diag" : ""} ${nested ? "nested" : ""} ${k.kind === "boolean" ? "inline" : ""}`}
    >
      <label htmlFor={`field-${path}`} title={schema?.description}>
        {fieldLabel(name)}
      </label>
      <ValueInput {...input} />
      {!nested && <FieldDiags diags={diags} />}
    </div>
  );
}

/**
 * A form generated from a JSON schema: a field per property (and per unknown key, so nothing is hidden),
 * typed inputs, selects for enums, variable pickers for selectors, lists and sub-forms for structure.
 */
export function SchemaForm({
  schema,
  value,
  onChange,
  diagnostics,
  ctx,
  path = "",
  depth = 0,
  skip = new Set<string>(),
}: {
  schema: JsonSchema | null;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  diagnostics: Diagnostic[];
  ctx: FormCtx;
  path?: string;
  depth?: number;
  skip?: Set<string>;
}) {
  const props = schema?.properties ?? {};
  const names = [...new Set([...Object.keys(props), ...Object.keys(value)])].filter(
    (n) => !skip.has(n) && (depth > 0 || !HIDDEN.has(n)),
  );
  const main = depth > 0 ? names : names.filter((n) => !ADVANCED.has(n));
  const advanced = depth > 0 ? [] : names.filter((n) => ADVANCED.has(n));
  const full = (n: string) => (path ? `${path}.${n}` : n);
  const set = (n: string, v: unknown) => {
    const next = { ...value };
    if (v === undefined) delete next[n];
    else next[n] = v;
    onChange(next);
  };
  const field = (n: string) => (
    <Field
      key={n}
      name={n}
      path={full(n)}
      schema={props[n]}
      value={value[n]}
      onChange={(v) => set(n, v)}
      diags={pathDiags(diagnostics, full(n))}
      depth={depth}
      ctx={ctx}
    />
  );
  return (
    <div className={`schema-form ${depth > 0 ? "sub-form" : ""}`}>
      {main.map(field)}
      {advanced.length > 0 && (
        <details className="advanced">
          <summary>Advanced: errors, retries, timeout</summary>
          {advanced.map(field)}
        </details>
      )}
    </div>
  );
}
