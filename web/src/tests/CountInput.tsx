/** A narrow text box for a count or threshold, kept as typed: the caller checks it when it is used. */
export function CountInput({
  value,
  onChange,
  testId,
  label,
}: {
  value: string;
  onChange: (v: string) => void;
  testId: string;
  label: string;
}) {
  return (
    <input
      className="num"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      data-testid={testId}
      aria-label={label}
    />
  );
}
