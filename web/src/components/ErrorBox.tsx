import type { ReactNode } from "react";

/** What went wrong, boxed in the error colour; nothing when nothing did. */
export function ErrorBox({ error, testId }: { error?: ReactNode; testId?: string }) {
  if (!error) return null;
  return (
    <div className="diag error boxed" data-testid={testId}>
      {error}
    </div>
  );
}
