/** The header row of a list table (`table.apps`); an empty name heads a column of row actions. */
export function TableHead({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => (
          <th key={i}>{c}</th>
        ))}
      </tr>
    </thead>
  );
}
