import { X } from "lucide-react";
import { ifElseCases } from "../canvas/summary";
import type { AvailableValue } from "../types";
import { AddButton, RemoveButton } from "./ListButtons";
import { useAvailable, VariablePicker } from "./VariablePicker";

type Any = Record<string, any>;

const ALL = [
  "contains",
  "not contains",
  "start with",
  "end with",
  "is",
  "is not",
  "empty",
  "not empty",
  "in",
  "not in",
  "all of",
  "=",
  "≠",
  ">",
  "<",
  "≥",
  "≤",
  "null",
  "not null",
  "exists",
  "not exists",
];
export const UNARY = new Set(["empty", "not empty", "null", "not null", "exists", "not exists"]);

/** The comparisons that make sense for a value of this type (Dify offers the same per type). */
export function operatorsFor(type: string | undefined): string[] {
  if (!type || type === "any" || type === "object") return ALL;
  if (type === "string")
    return ["contains", "not contains", "start with", "end with", "is", "is not", "empty", "not empty", "in", "not in"];
  if (type === "number" || type === "integer")
    return ["=", "≠", ">", "<", "≥", "≤", "empty", "not empty", "null", "not null"];
  if (type === "boolean") return ["is", "is not"];
  if (type === "file") return ["exists", "not exists"];
  if (type.startsWith("array")) return ["contains", "not contains", "all of", "empty", "not empty"];
  return ALL;
}

const newCaseId = (cases: Any[]) => (cases.length === 0 ? "true" : crypto.randomUUID());

function ConditionRow({
  nodeId,
  cond,
  types,
  onChange,
  onRemove,
  testId,
}: {
  nodeId: string;
  cond: Any;
  types: Map<string, string>;
  onChange: (c: Any) => void;
  onRemove: () => void;
  testId: string;
}) {
  const sel: string[] = Array.isArray(cond.variable_selector) ? cond.variable_selector : [];
  const type = types.get(sel.join("."));
  const ops = operatorsFor(type);
  const op = String(cond.comparison_operator ?? "");
  return (
    <div className="cond-row" data-testid={testId}>
      <VariablePicker
        nodeId={nodeId}
        value={sel}
        testId={`${testId}-var`}
        onChange={(s) => {
          const t = types.get(s.join("."));
          const keep = operatorsFor(t).includes(op) ? op : operatorsFor(t)[0];
          onChange({ ...cond, variable_selector: s, comparison_operator: keep, ...(t ? { varType: t } : {}) });
        }}
      />
      <select
        className="cond-op"
        data-testid={`${testId}-op`}
        value={op}
        onChange={(e) => onChange({ ...cond, comparison_operator: e.target.value })}
      >
        {!ops.includes(op) && <option value={op}>{op || "—"}</option>}
        {ops.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      {!UNARY.has(op) && (
        <input
          className="cond-value"
          data-testid={`${testId}-value`}
          placeholder="value"
          value={Array.isArray(cond.value) ? cond.value.join(", ") : String(cond.value ?? "")}
          onChange={(e) => onChange({ ...cond, value: e.target.value })}
        />
      )}
      <button type="button" className="icon-btn" title="Remove condition" onClick={onRemove}>
        <X size={14} />
      </button>
    </div>
  );
}

/**
 * If-else cases as people read them: IF / ELIF blocks of conditions joined by AND or OR, then ELSE. A legacy
 * single-case config is shown as its one case and written back in the current `cases` layout.
 */
export function ConditionBuilder({
  nodeId,
  config,
  onChange,
  onCaseRemoved,
}: {
  nodeId: string;
  config: Any;
  onChange: (config: Any) => void;
  onCaseRemoved: (caseId: string) => void;
}) {
  const cases = ifElseCases(config);
  const { values } = useAvailable(nodeId);
  const types = new Map((values ?? []).map((v: AvailableValue) => [v.selector.join("."), v.type]));
  const write = (next: Any[]) => {
    const { conditions: _c, logical_operator: _l, ...rest } = config;
    onChange({ ...rest, cases: next });
  };
  const setCase = (i: number, k: Any) => write(cases.map((x, j) => (j === i ? k : x)));
  return (
    <div className="cond-builder" data-testid="condition-builder">
      {cases.map((k, i) => {
        const conds: Any[] = Array.isArray(k.conditions) ? k.conditions : [];
        const logic = String(k.logical_operator ?? "and");
        return (
          <div className="cond-case" key={String(k.case_id)} data-testid={`case-${i}`}>
            <div className="cond-case-head">
              <b>{i === 0 ? "IF" : "ELIF"}</b>
              {String(k.case_id) !== "true" && (
                <span className="muted small">case {String(k.case_id).slice(0, 8)}</span>
              )}
              <span className="spacer" />
              {cases.length > 1 && (
                <RemoveButton
                  title="Remove this case"
                  onClick={() => {
                    write(cases.filter((_, j) => j !== i));
                    onCaseRemoved(String(k.case_id));
                  }}
                />
              )}
            </div>
            <div className={`cond-list ${conds.length > 1 ? "joined" : ""}`}>
              {conds.length > 1 && (
                <button
                  type="button"
                  className="logic-toggle"
                  data-testid={`case-${i}-logic`}
                  title="Switch between AND and OR"
                  onClick={() => setCase(i, { ...k, logical_operator: logic === "and" ? "or" : "and" })}
                >
                  {logic.toUpperCase()}
                </button>
              )}
              {conds.map((c, j) => (
                <ConditionRow
                  key={j}
                  nodeId={nodeId}
                  cond={c}
                  types={types}
                  testId={`case-${i}-cond-${j}`}
                  onChange={(nc) => setCase(i, { ...k, conditions: conds.map((x, m) => (m === j ? nc : x)) })}
                  onRemove={() => setCase(i, { ...k, conditions: conds.filter((_, m) => m !== j) })}
                />
              ))}
              {conds.length === 0 && <div className="muted small">No condition yet: this case never matches.</div>}
            </div>
            <AddButton
              testId={`case-${i}-add`}
              onClick={() =>
                setCase(i, {
                  ...k,
                  conditions: [...conds, { variable_selector: [], comparison_operator: "contains", value: "" }],
                })
              }
            >
              Add condition
            </AddButton>
          </div>
        );
      })}
      <AddButton
        testId="add-case"
        onClick={() => write([...cases, { case_id: newCaseId(cases), logical_operator: "and", conditions: [] }])}
      >
        {cases.length ? "ELIF" : "IF"}
      </AddButton>
      <div className="cond-case else">
        <b>ELSE</b> <span className="muted small">when no case above matches</span>
      </div>
    </div>
  );
}
