import { javascript } from "@codemirror/lang-javascript";
import { python } from "@codemirror/lang-python";
import { basicSetup } from "codemirror";
import { useMemo } from "react";
import { CodeMirrorField } from "./CodeMirrorField";

export const CODE_LANGUAGES = [
  { id: "python3", label: "Python 3" },
  { id: "javascript", label: "JavaScript" },
] as const;

/** Source code with syntax highlighting for its language (Python 3, JavaScript, or Jinja2 templates as text). */
export function CodeEditor({
  value,
  onChange,
  language,
  testId,
}: {
  value: string;
  onChange: (v: string) => void;
  language: string;
  testId?: string;
}) {
  const extensions = useMemo(
    () => [basicSetup, ...(language === "javascript" ? [javascript()] : language === "python3" ? [python()] : [])],
    [language],
  );
  return (
    <CodeMirrorField
      key={language}
      value={value}
      onChange={onChange}
      extensions={extensions}
      testId={testId}
      className="code"
    />
  );
}
