import { useEffect, useState } from "react";
import type { Diagnostic, JsonSchema } from "../types";

/** Fields every node carries that the editor leaves to the "advanced" group. */
const ADVANCED = new Set(["desc", "selected", "version", "error_strategy", "default_value", "retry_config", "timeout_seconds", "gates", "isInIteration", "iteration_id", "isInLoop", "loop_id"]);
const HIDDEN = new Set(["selected", "isInIteration", "isInLoop", "iteration_id", "loop_id"]);

type Kind = { kind: "string" | "number" | "integer" | "boolean" | "enum" | "object" | "json"; options?: unknown[]; schema?: JsonSchema };

/** What input suits a schema: primitives get a field, enums a select, everything else JSON. */
function kindOf(s: JsonSchema | undefined): Kind {
  if (!s) return { kind: "json" };
  const alts = (s.anyOf ?? s.oneOf)?.filter((a) => a.type !== "null");
  if (alts && alts.length === 1) return kindOf(alts[0]);
  if (alts && alts.length > 1) {
    if (alts.every((a) => a.const !== undefined)) return { kind: "enum", options: alts.map((a) => a.const) };
    if (alts.every((a) => a.type === "string" || a.type === "number" || a.type === "integer")) return { kind: "string" };
    return { kind: "json" };
  }
  if (s.enum) return { kind: "enum", options: s.enum.filter((x) => x !== null) };
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (t === "string" || t === "number" || t === "integer" || t === "boolean") return { kind: t };
  if (t === "object" && s.properties && Object.keys(s.properties).length > 0) return { kind: "object", schema: s };
  return { kind: "json" };
}

function JsonField({ value, onChange, testId }: { value: unknown; onChange: (v: unknown) => void; testId: string }) {
  const render = (v: unknown) => (v === undefined ? "" : JSON.stringify(v, null, 2));
  const [text, setText] = useState(render(value));
  const [bad, setBad] = useState<string>();
  useEffect(() => {
    // Follow outside changes (a new version), but not while the text is mid-edit and invalid.
    if (!bad) setText(render(value));
  }, [value]);
  return (
    <>
      <textarea
        data-testid={testId}
        className={bad ? "bad" : ""}
        rows={Math.min(14, Math.max(2, text.split("\n").length))}
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

function Field({ name, path, schema, value, onChange, diags, depth }: { name: string; path: string; schema?: JsonSchema; value: unknown; onChange: (v: unknown) => void; diags: Diagnostic[]; depth: number }) {
  const k = kindOf(schema);
  const id = `field-${path}`;
  let input;
  // Objects with known fields nest as a sub-form (two levels deep; deeper ones are JSON).
  if (k.kind === "object" && depth < 2 && (value === undefined || (typeof value === "object" && value !== null && !Array.isArray(value))))
    return (
      <fieldset className="sub-form" data-testid={id}>
        <legend title={schema?.description}>{name}</legend>
        <SchemaForm schema={k.schema ?? null} value={(value as Record<string, unknown>) ?? {}} onChange={onChange} diagnostics={diags} path={path} depth={depth + 1} />
      </fieldset>
    );
  if (k.kind === "boolean") input = <input id={id} data-testid={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  else if (k.kind === "enum")
    input = (
      <select id={id} data-testid={id} value={value === undefined || value === null ? "" : String(value)} onChange={(e) => onChange(e.target.value === "" ? undefined : k.options?.find((o) => String(o) === e.target.value))}>
        <option value="">—</option>
        {k.options?.map((o) => (
          <option key={String(o)} value={String(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  else if (k.kind === "number" || k.kind === "integer")
    input = <input id={id} data-testid={id} type="number" value={typeof value === "number" ? value : ""} onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))} />;
  else if (k.kind === "string" && (typeof value === "string" || value === undefined)) {
    const long = typeof value === "string" && (value.length > 60 || value.includes("\n"));
    input = long ? (
      <textarea id={id} data-testid={id} rows={Math.min(16, value.split("\n").length + 1)} value={value} spellCheck={false} onChange={(e) => onChange(e.target.value)} />
    ) : (
      <input id={id} data-testid={id} value={value ?? ""} onChange={(e) => onChange(e.target.value)} />
    );
  } else input = <JsonField value={value} onChange={onChange} testId={id} />;
  return (
    <div className={`field ${diags.length ? "field-has-diag" : ""}`}>
      <label htmlFor={id} title={schema?.description}>
        {name}
      </label>
      {input}
      {diags.map((d, i) => (
        <div key={i} className={`diag ${d.severity}`}>
          {d.code}: {d.message}
        </div>
      ))}
    </div>
  );
}

/** A form generated from the node type's JSON schema; fields the schema does not know are still editable. */
export function SchemaForm({
  schema,
  value,
  onChange,
  diagnostics,
  path = "",
  depth = 0,
}: {
  schema: JsonSchema | null;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  diagnostics: Diagnostic[];
  path?: string;
  depth?: number;
}) {
  const props = schema?.properties ?? {};
  const names = [...new Set([...Object.keys(props), ...Object.keys(value)])].filter((n) => depth > 0 || !HIDDEN.has(n));
  const main = depth > 0 ? names : names.filter((n) => !ADVANCED.has(n));
  const advanced = depth > 0 ? [] : names.filter((n) => ADVANCED.has(n));
  const full = (n: string) => (path ? `${path}.${n}` : n);
  const diagsFor = (n: string) => diagnostics.filter((d) => d.field === full(n) || d.field?.startsWith(`${full(n)}.`) || d.field?.startsWith(`${full(n)}[`));
  const set = (n: string, v: unknown) => {
    const next = { ...value };
    if (v === undefined) delete next[n];
    else next[n] = v;
    onChange(next);
  };
  const field = (n: string) => <Field key={n} name={n} path={full(n)} schema={props[n]} value={value[n]} onChange={(v) => set(n, v)} diags={diagsFor(n)} depth={depth} />;
  return (
    <div className="schema-form">
      {main.map(field)}
      {advanced.length > 0 && (
        <details>
          <summary>Advanced (errors, retries, gates)</summary>
          {advanced.map(field)}
        </details>
      )}
    </div>
  );
}
