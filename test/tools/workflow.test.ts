import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import type { FileValue } from "../../src/ir/services.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { createLocalServices } from "../../src/tools/index.js";
import { makePdf } from "./samples.js";

/** start(file) → document-extractor → md_to_docx + current_time → end, run by the real engine. */
function workflow(): Workflow {
  return {
    weft: 1,
    name: "extract-and-export",
    description: "",
    mode: "workflow",
    environment_variables: [],
    conversation_variables: [],
    nodes: [
      {
        id: "start",
        type: "start",
        title: "Start",
        config: { variables: [{ variable: "doc", label: "Doc", type: "file", required: true }] },
      },
      {
        id: "extract",
        type: "document-extractor",
        title: "Extract",
        config: { variable_selector: ["start", "doc"], is_array_file: false },
      },
      {
        id: "export",
        type: "tool",
        title: "Export",
        config: {
          provider_id: "bowenliang123/md_exporter/md_exporter",
          provider_type: "builtin",
          tool_name: "md_to_docx",
          tool_node_version: "2",
          tool_configurations: {},
          tool_parameters: {
            md_text: { type: "mixed", value: "# Summary\n\n{{#extract.text#}}" },
            output_filename: { type: "constant", value: "summary" },
          },
        },
      },
      {
        id: "clock",
        type: "tool",
        title: "Clock",
        config: {
          provider_id: "time",
          tool_name: "current_time",
          tool_configurations: { format: "%Y-%m-%d %H:%M", timezone: "Asia/Shanghai" },
          tool_parameters: {},
        },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: {
          outputs: [
            { variable: "text", value_selector: ["extract", "text"] },
            { variable: "files", value_selector: ["export", "files"] },
            { variable: "json", value_selector: ["export", "json"] },
            { variable: "time", value_selector: ["clock", "text"] },
          ],
        },
      },
    ],
    edges: [
      { source: "start", sourcePort: "source", target: "extract" },
      { source: "extract", sourcePort: "source", target: "export" },
      { source: "start", sourcePort: "source", target: "clock" },
      { source: "export", sourcePort: "source", target: "end" },
      { source: "clock", sourcePort: "source", target: "end" },
    ],
  };
}

describe("tool and document-extractor nodes in the engine", () => {
  it("extracts an uploaded PDF, exports a DOCX through the file store and reads the pinned clock", async () => {
    const now = () => new Date("2026-03-15T04:05:06Z");
    const services = createLocalServices({ now });
    const upload = await services.files.put(await makePdf(["Quarterly numbers are up."]), {
      filename: "q.pdf",
      mimeType: "application/pdf",
      transferMethod: "local_file",
    });
    const res = await runWorkflow(workflow(), { inputs: { doc: upload }, services: { ...services, now } });
    expect(res.error).toBeUndefined();
    expect(res.status).toBe("succeeded");
    expect(res.outputs.text).toContain("Quarterly numbers are up.");
    expect(res.outputs.time).toBe("2026-03-15 12:05");
    expect(res.outputs.json).toEqual([{ data: [] }]);
    const [docx] = res.outputs.files as FileValue[];
    expect(docx?.filename).toBe("summary.docx");
    const back = await services.documents.extract(docx as FileValue, await services.files.get(docx as FileValue));
    expect(back).toContain("Summary");
    expect(back).toContain("Quarterly numbers are up.");
  });

  it("a tool that needs an outside service fails the run with tool.not_configured naming the node", async () => {
    const wf = workflow();
    const clock = wf.nodes.find((n) => n.id === "clock");
    if (clock)
      clock.config = {
        provider_id: "tavily",
        tool_name: "tavily_search",
        tool_parameters: { query: { type: "mixed", value: "x" } },
      };
    const services = createLocalServices();
    const upload = await services.files.put(new TextEncoder().encode("hi"), {
      filename: "a.txt",
      mimeType: "text/plain",
    });
    const res = await runWorkflow(wf, { inputs: { doc: upload }, services });
    expect(res.status).toBe("failed");
    expect(res.error?.code).toBe("tool.not_configured");
    expect(res.error?.message).toContain("tavily/tavily_search");
  });
});
