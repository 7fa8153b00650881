import { useState } from "react";
import { humanize } from "../labels";
import type { Workflow } from "../types";

const LIMIT = 220;

/** A diagnostic's message with node ids shown as titles; very long ones (path conditions) fold after a line or two. */
export function DiagMessage({ wf, message }: { wf?: Workflow; message: string }) {
  const [all, setAll] = useState(false);
  const text = humanize(wf, message);
  if (text.length <= LIMIT || all) return <>{text}</>;
  return (
    <>
      {text.slice(0, LIMIT)}…{" "}
      <button
        type="button"
        className="link-btn small"
        onClick={(e) => {
          e.stopPropagation();
          setAll(true);
        }}
      >
        show all
      </button>
    </>
  );
}
