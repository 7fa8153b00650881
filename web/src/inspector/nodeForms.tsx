import type { ReactNode } from "react";
import { KnowledgePicker } from "../knowledge/KnowledgePicker";
import { CodeEditor } from "./CodeEditor";
import { ConditionBuilder } from "./ConditionBuilder";
import { BindingList, CodeOutputs, CodeWithLanguage, ModelField, PromptMessages, StartVariables } from "./widgets";

type Any = Record<string, any>;

export interface SectionProps {
  nodeId: string;
  config: Any;
  /** Merge a patch into the config (undefined removes a key). */
  patch: (p: Any) => void;
  /** Replace the whole config (sections that rewrite a layout, e.g. legacy if-else). */
  replace: (c: Any) => void;
  removeEdgesFrom: (port: string) => void;
}

/** A titled part of a node's inspector that edits some config keys with a purpose-built widget. */
export interface Section {
  title: string;
  keys: string[];
  render: (p: SectionProps) => ReactNode;
}

/** The model a node calls (llm, question-classifier, parameter-extractor). */
const modelSection: Section = {
  title: "Model",
  keys: ["model"],
  render: (p) => <ModelField value={p.config.model} onChange={(model) => p.patch({ model })} />,
};

/** A config key holding names bound to variables: the inputs a code or template reads, the outputs an end gives. */
const bindingSection = (title: string, key: string, testId: string, nameLabel: string): Section => ({
  title,
  keys: [key],
  render: (p) => (
    <BindingList
      nodeId={p.nodeId}
      value={p.config[key]}
      onChange={(bindings) => p.patch({ [key]: bindings })}
      testId={testId}
      nameLabel={nameLabel}
    />
  ),
});

/**
 * Per node type, the fields that deserve more than the generated form: they come first, in this order; every
 * other field of the schema follows in the generated form. `hide` names keys nobody should edit by hand.
 */
export const NODE_FORMS: Record<string, { sections: Section[]; hide?: string[] }> = {
  start: {
    sections: [
      {
        title: "Inputs",
        keys: ["variables"],
        render: (p) => <StartVariables value={p.config.variables} onChange={(variables) => p.patch({ variables })} />,
      },
    ],
  },
  end: {
    sections: [bindingSection("Outputs", "outputs", "end-outputs", "output name")],
  },
  llm: {
    sections: [
      modelSection,
      {
        title: "Prompt",
        keys: ["prompt_template"],
        render: (p) => (
          <PromptMessages
            nodeId={p.nodeId}
            value={p.config.prompt_template}
            onChange={(prompt_template) => p.patch({ prompt_template })}
          />
        ),
      },
    ],
  },
  "knowledge-retrieval": {
    sections: [
      {
        title: "Knowledge bases",
        keys: ["dataset_ids"],
        render: (p) => (
          <KnowledgePicker value={p.config.dataset_ids} onChange={(dataset_ids) => p.patch({ dataset_ids })} />
        ),
      },
    ],
  },
  "question-classifier": {
    sections: [modelSection],
  },
  "parameter-extractor": {
    sections: [modelSection],
  },
  "if-else": {
    sections: [
      {
        title: "Conditions",
        keys: ["cases", "conditions", "logical_operator"],
        render: (p) => (
          <ConditionBuilder
            nodeId={p.nodeId}
            config={p.config}
            onChange={p.replace}
            onCaseRemoved={p.removeEdgesFrom}
          />
        ),
      },
    ],
  },
  code: {
    sections: [
      bindingSection("Input variables", "variables", "code-inputs", "argument"),
      {
        title: "Code",
        keys: ["code", "code_language"],
        render: (p) => <CodeWithLanguage config={p.config} onChange={p.patch} />,
      },
      {
        title: "Outputs",
        keys: ["outputs"],
        render: (p) => <CodeOutputs value={p.config.outputs} onChange={(outputs) => p.patch({ outputs })} />,
      },
    ],
  },
  "template-transform": {
    sections: [
      bindingSection("Input variables", "variables", "template-inputs", "name"),
      {
        title: "Template (Jinja2)",
        keys: ["template"],
        render: (p) => (
          <CodeEditor
            value={String(p.config.template ?? "")}
            onChange={(template) => p.patch({ template })}
            language="jinja2"
            testId="template-editor"
          />
        ),
      },
    ],
  },
};

/**
 * Choices for fields the schemas keep as free strings (real files carry values beyond Dify's list, which stay
 * selectable), shown as selects.
 */
export const FIELD_OPTIONS: Record<string, Record<string, string[]>> = {
  "http-request": {
    method: ["get", "post", "put", "patch", "delete", "head"],
    "authorization.type": ["no-auth", "api-key"],
    "authorization.config.type": ["basic", "bearer", "custom"],
    "body.type": ["none", "form-data", "x-www-form-urlencoded", "json", "raw-text", "binary"],
  },
  "knowledge-retrieval": { retrieval_mode: ["single", "multiple"] },
  "parameter-extractor": { reasoning_mode: ["prompt", "function_call"] },
  "variable-aggregator": {
    output_type: [
      "string",
      "number",
      "boolean",
      "object",
      "array[string]",
      "array[number]",
      "array[object]",
      "array[file]",
      "file",
      "any",
    ],
  },
  iteration: { error_handle_mode: ["terminated", "continue-on-error", "remove-abnormal-output"] },
  loop: { error_handle_mode: ["terminated", "continue-on-error"], logical_operator: ["and", "or"] },
};

/** Config paths that hold Dify template text, edited with variable chips. */
export const TEMPLATE_PATHS: Record<string, string[]> = {
  answer: ["answer"],
  "http-request": ["url", "headers", "params", "body.data"],
  "question-classifier": ["instruction", "instructions"],
  "parameter-extractor": ["instruction"],
  llm: ["memory.query_prompt_template"],
  "tool-call": ["instruction"],
};
