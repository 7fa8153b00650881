/**
 * Worked examples of Dify node semantics through the engine: list-operator (filter / extract / sort /
 * limit and their order), variable-aggregator group mode, assigner (v1 and every v2 operation),
 * answer markdown rendering, start input coercion and required inputs, and the per-node timeout with
 * default-value and fail-branch.
 */
import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { withSleepNode } from "../support/test-nodes.js";

const end = (outputs: Record<string, string[]>) => ({
  id: "end",
  type: "end",
  outputs: Object.entries(outputs).map(([variable, value_selector]) => ({ variable, value_selector })),
});

describe("list-operator", () => {
  const listWf = (cfg: Record<string, unknown>, varType = "array[number]") =>
    buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "data", type: "json_object" }] },
        { id: "lo", type: "list-operator", variable: ["start", "data", "items"], var_type: varType, ...cfg },
        end({ result: ["lo", "result"], first: ["lo", "first_record"], last: ["lo", "last_record"] }),
      ],
      edges: [
        ["start", "lo"],
        ["lo", "end"],
      ],
    });
  const run = async (cfg: Record<string, unknown>, items: unknown, varType?: string) =>
    runWorkflow(listWf(cfg, varType), { inputs: { data: { items } } });
  const nums = [5, 3, 8, 1, 9, 2];

  it("filter, then sort, then limit (limit keeps the first N after sorting)", async () => {
    const r = await run(
      {
        filter_by: { enabled: true, conditions: [{ key: "", comparison_operator: ">", value: "2" }] },
        order_by: { enabled: true, key: "", value: "desc" },
        limit: { enabled: true, size: 2 },
      },
      nums,
    );
    expect(r.outputs).toEqual({ result: [9, 8], first: 9, last: 8 });
  });

  it("extract runs after filter and before sort (serial is 1-based and may be a template)", async () => {
    const r = await run(
      {
        filter_by: { enabled: true, conditions: [{ key: "", comparison_operator: "≥", value: "3" }] },
        extract_by: { enabled: true, serial: "{{#start.data.pick#}}" },
        order_by: { enabled: true, key: "", value: "desc" },
      },
      nums,
    );
    // the pick is missing from the input, so the template renders its bare text: a typed serial error
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "list.bad_serial", nodeId: "lo" });
    const wf = listWf({
      filter_by: { enabled: true, conditions: [{ key: "", comparison_operator: "≥", value: "3" }] },
      extract_by: { enabled: true, serial: "{{#start.data.pick#}}" },
      order_by: { enabled: true, key: "", value: "desc" },
    });
    const ok = await runWorkflow(wf, { inputs: { data: { items: nums, pick: 2 } } });
    // filtered [5, 3, 8, 9] → 2nd item [3]; sorting first would have given [8]
    expect(ok.outputs).toEqual({ result: [3], first: 3, last: 3 });
  });

  it("string filters and ascending sort", async () => {
    const words = ["pear", "apple", "plum", "banana", "peach"];
    const r = await run(
      {
        filter_by: { enabled: true, conditions: [{ key: "", comparison_operator: "start with", value: "p" }] },
        order_by: { enabled: true, key: "", value: "asc" },
      },
      words,
      "array[string]",
    );
    expect(r.outputs.result).toEqual(["peach", "pear", "plum"]);
    const notIn = await run(
      {
        filter_by: { enabled: true, conditions: [{ key: "", comparison_operator: "not in", value: ["pear", "plum"] }] },
      },
      words,
      "array[string]",
    );
    expect(notIn.outputs.result).toEqual(["apple", "banana", "peach"]);
    const both = await run(
      {
        filter_by: {
          enabled: true,
          conditions: [
            { key: "", comparison_operator: "contains", value: "a" },
            { key: "", comparison_operator: "end with", value: "h" },
          ],
        },
      },
      words,
      "array[string]",
    );
    // every filter condition must hold
    expect(both.outputs.result).toEqual(["peach"]);
  });

  it("files: filter on an attribute and sort by size", async () => {
    const f = (filename: string, type: string, size: number) => ({
      dify_model_identity: "__dify__file__",
      transfer_method: "local_file",
      filename,
      extension: `.${filename.split(".")[1]}`,
      type,
      size,
      mime_type: "application/octet-stream",
    });
    const files = [f("a.png", "image", 30), f("b.pdf", "document", 10), f("c.jpg", "image", 20)];
    const r = await run(
      {
        filter_by: { enabled: true, conditions: [{ key: "type", comparison_operator: "in", value: ["image"] }] },
        order_by: { enabled: true, key: "size", value: "asc" },
      },
      files,
      "array[file]",
    );
    expect((r.outputs.result as Array<{ filename: string }>).map((x) => x.filename)).toEqual(["c.jpg", "a.png"]);
    expect((r.outputs.first as { filename: string }).filename).toBe("c.jpg");
  });

  it("an empty or null input gives [] with null first/last records, whatever is enabled (Dify returns early)", async () => {
    const cfg = { extract_by: { enabled: true, serial: "1" }, limit: { enabled: true, size: 1 } };
    for (const items of [[], null]) {
      const r = await run(cfg, items);
      expect(r.status).toBe("succeeded");
      expect(r.outputs).toEqual({ result: [], first: null, last: null });
    }
  });

  it("a missing input, a non-array and an array of objects fail with typed errors", async () => {
    const missing = await runWorkflow(listWf({}), { inputs: { data: {} } });
    // [start, data, items] on an object without `items` reads as null (deeper paths are null in Dify)
    expect(missing.status).toBe("succeeded");
    const noNode = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "lo", type: "list-operator", variable: ["ghost", "list"] },
        end({ r: ["lo", "result"] }),
      ],
      edges: [
        ["start", "lo"],
        ["lo", "end"],
      ],
    });
    expect((await runWorkflow(noNode)).error).toMatchObject({ code: "list.missing_variable", nodeId: "lo" });
    expect((await run({}, "nope")).error).toMatchObject({ code: "list.not_array" });
    expect((await run({}, [{ a: 1 }], "array[object]")).error).toMatchObject({ code: "list.object_array" });
  });
});

describe("variable-aggregator group mode", () => {
  it("each group outputs the first existing variable at <group>.output; skipped branches are absent", async () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
        {
          id: "if",
          type: "if-else",
          cases: [
            {
              case_id: "true",
              logical_operator: "and",
              conditions: [{ variable_selector: ["start", "x"], comparison_operator: "is", value: "a" }],
            },
          ],
        },
        tpl("a", "from a"),
        tpl("b", "from b"),
        {
          id: "agg",
          type: "variable-aggregator",
          advanced_settings: {
            group_enabled: true,
            groups: [
              {
                group_name: "text",
                output_type: "string",
                variables: [
                  ["a", "output"],
                  ["b", "output"],
                ],
                groupId: "g1",
              },
              { group_name: "input", output_type: "string", variables: [["start", "x"]], groupId: "g2" },
            ],
          },
        },
        tpl("use", "{{ t }}|{{ i }}", { t: ["agg", "text", "output"], i: ["agg", "input", "output"] }),
        end({ out: ["use", "output"], group: ["agg", "text"] }),
      ],
      edges: [
        ["start", "if"],
        ["if", "true", "a"],
        ["if", "false", "b"],
        ["a", "agg"],
        ["b", "agg"],
        ["agg", "use"],
        ["use", "end"],
      ],
    });
    const a = await runWorkflow(wf, { inputs: { x: "a" } });
    expect(a.outputs).toEqual({ out: "from a|a", group: { output: "from a" } });
    const b = await runWorkflow(wf, { inputs: { x: "zzz" } });
    expect(b.outputs).toEqual({ out: "from b|zzz", group: { output: "from b" } });
  });
});

describe("assigner", () => {
  const chat = (items: unknown[], conv: Array<{ name: string; value_type: string; value: unknown }>) =>
    buildWorkflow({
      mode: "advanced-chat",
      conversation_variables: conv as never,
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "v", type: "json_object" }] },
        { id: "as", type: "assigner", version: "2", items },
        { id: "ans", type: "answer", answer: "done" },
      ],
      edges: [
        ["start", "as"],
        ["as", "ans"],
      ],
    });
  const op = (name: string, operation: string, value?: unknown, input_type: "constant" | "variable" = "constant") => ({
    variable_selector: ["conversation", name],
    input_type,
    operation,
    value,
  });

  it("every v2 operation", async () => {
    const conv = [
      { name: "s", value_type: "string", value: "old" },
      { name: "s2", value_type: "string", value: "x" },
      { name: "n", value_type: "number", value: 10 },
      { name: "m", value_type: "number", value: 10 },
      { name: "d", value_type: "number", value: 10 },
      { name: "q", value_type: "number", value: 10 },
      { name: "arr", value_type: "array[string]", value: ["a"] },
      { name: "ext", value_type: "array[string]", value: ["a"] },
      { name: "rf", value_type: "array[number]", value: [1, 2, 3] },
      { name: "rl", value_type: "array[number]", value: [1, 2, 3] },
      { name: "re", value_type: "array[number]", value: [] },
      { name: "o", value_type: "object", value: { k: 1 } },
      { name: "b", value_type: "boolean", value: true },
      { name: "cs", value_type: "string", value: "gone" },
      { name: "cn", value_type: "number", value: 7 },
      { name: "ca", value_type: "array[string]", value: ["z"] },
    ];
    const items = [
      op("s", "over-write", ["start", "v", "text"], "variable"),
      op("s2", "set", "constant"),
      op("n", "+=", 5),
      op("m", "-=", 3),
      op("d", "*=", 2),
      op("q", "/=", 4),
      op("arr", "append", "b"),
      op("ext", "extend", ["start", "v", "more"], "variable"),
      op("rf", "remove-first"),
      op("rl", "remove-last"),
      op("re", "remove-first"),
      op("o", "set", { k: 2, j: [1] }),
      op("b", "set", false),
      op("cs", "clear"),
      op("cn", "clear"),
      op("ca", "clear"),
    ];
    const r = await runWorkflow(chat(items, conv), { inputs: { v: { text: "new", more: ["b", "c"] } } });
    expect(r.status).toBe("succeeded");
    expect(r.conversation).toEqual({
      s: "new",
      s2: "constant",
      n: 15,
      m: 7,
      d: 20,
      q: 2.5,
      arr: ["a", "b"],
      ext: ["a", "b", "c"],
      rf: [2, 3],
      rl: [1, 2],
      re: [],
      o: { k: 2, j: [1] },
      b: false,
      cs: "",
      cn: 0,
      ca: [],
    });
  });

  it("clear gives the type's zero value: {} for an object, false for a boolean", async () => {
    const r = await runWorkflow(
      chat(
        [op("o", "clear"), op("b", "clear")],
        [
          { name: "o", value_type: "object", value: { a: 1 } },
          { name: "b", value_type: "boolean", value: true },
        ],
      ),
      { inputs: { v: {} } },
    );
    expect(r.conversation).toEqual({ o: {}, b: false });
  });

  it("later items see earlier writes; downstream nodes see the new value in the same run", async () => {
    const wf = buildWorkflow({
      mode: "advanced-chat",
      conversation_variables: [{ name: "n", value_type: "number", value: 1 }],
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "as", type: "assigner", version: "2", items: [op("n", "+=", 1), op("n", "*=", 10)] },
        { id: "ans", type: "answer", answer: "n={{#conversation.n#}}" },
      ],
      edges: [
        ["start", "as"],
        ["as", "ans"],
      ],
    });
    const r = await runWorkflow(wf);
    expect(r.outputs.answer).toBe("n=20");
  });

  it("v1 layout: over-write, append and clear", async () => {
    const v1 = (write_mode: string) =>
      buildWorkflow({
        mode: "advanced-chat",
        conversation_variables: [{ name: "hist", value_type: "array[string]", value: ["x"] }],
        nodes: [
          { id: "start", type: "start", variables: [] },
          tpl("t", "msg"),
          {
            id: "as",
            type: "assigner",
            assigned_variable_selector: ["conversation", "hist"],
            write_mode,
            input_variable_selector: write_mode === "over-write" ? ["start", "sys.files"] : ["t", "output"],
          },
          { id: "ans", type: "answer", answer: "ok" },
        ],
        edges: [
          ["start", "t"],
          ["t", "as"],
          ["as", "ans"],
        ],
      });
    expect((await runWorkflow(v1("append"))).conversation.hist).toEqual(["x", "msg"]);
    expect((await runWorkflow(v1("over-write"))).conversation.hist).toEqual([]);
    expect((await runWorkflow(v1("clear"))).conversation.hist).toEqual([]);
  });

  it("bad operations are typed errors naming the node", async () => {
    const conv = [
      { name: "s", value_type: "string", value: "a" },
      { name: "n", value_type: "number", value: 1 },
    ];
    const append = await runWorkflow(chat([op("s", "append", "b")], conv), { inputs: { v: {} } });
    expect(append.error).toMatchObject({ code: "assigner.bad_operation", nodeId: "as" });
    const div = await runWorkflow(chat([op("n", "/=", 0)], conv), { inputs: { v: {} } });
    expect(div.error).toMatchObject({ code: "assigner.bad_operation" });
    const missing = await runWorkflow(chat([op("ghost", "set", 1)], conv), { inputs: { v: {} } });
    expect(missing.error).toMatchObject({ code: "assigner.missing_target" });
    // a value variable that does not exist fails the node, as in Dify (v1 and v2)
    const noSource = await runWorkflow(chat([op("s", "over-write", ["ghost", "text"], "variable")], conv), {
      inputs: { v: {} },
    });
    expect(noSource.error).toMatchObject({ code: "assigner.missing_value", nodeId: "as" });
    expect(noSource.error!.message).toContain("ghost.text");
  });
});

describe("answer markdown rendering", () => {
  const file = (filename: string, type: string, url: string) => ({
    dify_model_identity: "__dify__file__",
    transfer_method: "remote_url",
    remote_url: url,
    url: null,
    filename,
    extension: `.${filename.split(".")[1]}`,
    type,
    mime_type: "application/octet-stream",
    size: 1,
  });
  const answerOf = async (template: string, v: unknown) => {
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "v", type: "json_object" }] },
        { id: "ans", type: "answer", answer: template },
      ],
      edges: [["start", "ans"]],
    });
    return runWorkflow(wf, { inputs: { v } });
  };

  it("objects as indented JSON, arrays as `- item` lines, scalars with Python str()", async () => {
    const r = await answerOf(
      "{{#start.v.obj#}}\n{{#start.v.list#}}\n{{#start.v.nums#}}\n{{#start.v.flag#}}|{{#start.v.none#}}|",
      {
        obj: { a: 1, b: ["x"], c: "é" },
        list: ["a", "b"],
        nums: [1, 2.5],
        flag: true,
        none: null,
      },
    );
    expect(r.outputs.answer).toBe('{\n  "a": 1,\n  "b": [\n    "x"\n  ],\n  "c": "é"\n}\n- a\n- b\n- 1\n- 2.5\nTrue||');
  });

  it("files as markdown links or images; a file list is one file per line; files are collected", async () => {
    const img = file("cat.png", "image", "https://x.test/cat.png");
    const doc = file("doc.pdf", "document", "https://x.test/doc.pdf");
    const r = await answerOf("Look: {{#start.v.img#}}\n{{#start.v.all#}}", { img, all: [doc, img] });
    expect(r.outputs.answer).toBe(
      "Look: ![cat.png](https://x.test/cat.png)\n[doc.pdf](https://x.test/doc.pdf)\n![cat.png](https://x.test/cat.png)",
    );
    expect((r.outputs.files as Array<{ filename: string }>).map((f) => f.filename)).toEqual([
      "cat.png",
      "doc.pdf",
      "cat.png",
    ]);
  });

  it("documented deviation: objects inside an array render as JSON (Dify prints Python's str(), e.g. - {'a': 1})", async () => {
    const r = await answerOf("{{#start.v.rows#}}", { rows: [{ a: 1 }, { b: "x" }] });
    expect(r.outputs.answer).toBe('- {"a":1}\n- {"b":"x"}');
  });

  it("an unresolved reference renders as its bare selector text", async () => {
    const r = await answerOf("[{{#ghost.text#}}]", {});
    expect(r.outputs.answer).toBe("[ghost.text]");
  });
});

describe("start inputs", () => {
  const startWf = (variables: Array<Record<string, unknown>>) =>
    buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables },
        end(Object.fromEntries(variables.map((v) => [String(v.variable), ["start", String(v.variable)]]))),
      ],
      edges: [["start", "end"]],
    });

  it("coerces numbers, checkboxes and JSON objects; applies defaults; optional inputs are null", async () => {
    const wf = startWf([
      { variable: "n", type: "number" },
      { variable: "c", type: "checkbox" },
      { variable: "j", type: "json_object" },
      { variable: "d", type: "text-input", default: "dflt" },
      { variable: "o", type: "paragraph" },
    ]);
    const r = await runWorkflow(wf, { inputs: { n: "42.5", c: "true", j: '{"a":[1]}' } });
    expect(r.outputs).toEqual({ n: 42.5, c: true, j: { a: [1] }, d: "dflt", o: null });
  });

  it("required inputs, select options, max_length and bad numbers fail with input.* errors naming the field", async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [{ variable: "q", type: "paragraph", required: true }, {}, "input.missing"],
      [{ variable: "q", type: "paragraph", required: true }, { q: "" }, "input.missing"],
      [{ variable: "s", type: "select", options: ["a", "b"] }, { s: "c" }, "input.invalid"],
      [{ variable: "t", type: "text-input", max_length: 3 }, { t: "long" }, "input.invalid"],
      [{ variable: "n", type: "number" }, { n: "abc" }, "input.invalid"],
      [{ variable: "j", type: "json_object" }, { j: "[1" }, "input.invalid"],
    ];
    for (const [decl, inputs, code] of cases) {
      const r = await runWorkflow(startWf([decl]), { inputs });
      expect(r.status).toBe("failed");
      expect(r.error).toMatchObject({ code, nodeId: "start" });
      expect(r.error!.message).toContain(String(decl.variable));
    }
  });

  it("max_length binds text-input and paragraph only: a select option longer than it is accepted (Dify parity)", async () => {
    const long = "an option far longer than five";
    const r = await runWorkflow(startWf([{ variable: "s", type: "select", options: [long], max_length: 5 }]), {
      inputs: { s: long },
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.s).toBe(long);
    const p = await runWorkflow(startWf([{ variable: "p", type: "paragraph", max_length: 5 }]), {
      inputs: { p: long },
    });
    expect(p.error).toMatchObject({ code: "input.invalid", nodeId: "start" });
  });

  it("a file-list input given one file is a one-element list", async () => {
    const file = {
      type: "document",
      transfer_method: "local_file",
      filename: "a.txt",
      extension: ".txt",
      mime_type: "text/plain",
      size: 1,
    };
    const r = await runWorkflow(startWf([{ variable: "docs", type: "file-list" }]), { inputs: { docs: file } });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.docs).toEqual([file]);
  });

  it("re-exports sys values as sys.<name> outputs (legacy [start, 'sys.query'] selectors)", async () => {
    const wf = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "ans", type: "answer", answer: "{{#start.sys.query#}}" },
      ],
      edges: [["start", "ans"]],
    });
    const legacy = buildWorkflow({
      mode: "advanced-chat",
      nodes: [
        { id: "start", type: "start", variables: [] },
        tpl("t", "{{ q }}", { q: ["start", "sys.query"] }),
        { id: "ans", type: "answer", answer: "{{#t.output#}}" },
      ],
      edges: [
        ["start", "t"],
        ["t", "ans"],
      ],
    });
    expect((await runWorkflow(legacy, { sys: { query: "hi there" } })).outputs.answer).toBe("hi there");
    // the {{#…#}} lexer reads `start.sys` then `query` as a path, which does not exist: bare text
    expect((await runWorkflow(wf, { sys: { query: "hi" } })).outputs.answer).toBe("start.sys.query");
  });
});

describe("per-node timeout (timeout_seconds)", () => {
  const nodeTypes = withSleepNode;
  const timed = (extra: Record<string, unknown>) =>
    buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "slow", type: "test-sleep", ms: 400, timeout_seconds: 0.05, ...extra },
        tpl("ok", "ok:{{ d }}", { d: ["slow", "done"] }),
        tpl("handler", "handled:{{ t }}", { t: ["slow", "error_type"] }),
        {
          id: "agg",
          type: "variable-aggregator",
          variables: [
            ["ok", "output"],
            ["handler", "output"],
          ],
        },
        end({ out: ["agg", "output"], done: ["slow", "done"], msg: ["slow", "error_message"] }),
      ],
      edges: [
        ["start", "slow"],
        ["slow", "source", "ok"],
        ["slow", "fail-branch", "handler"],
        ["ok", "agg"],
        ["handler", "agg"],
        ["agg", "end"],
      ],
    });

  it("without a strategy the run fails with node.timeout, promptly", async () => {
    const t0 = Date.now();
    const r = await runWorkflow(timed({}), { nodeTypes });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "node.timeout", nodeId: "slow" });
    expect(Date.now() - t0).toBeLessThan(350);
  });

  it("default-value: the defaults stand in, every edge is taken, the run is partial-succeeded", async () => {
    const r = await runWorkflow(
      timed({ error_strategy: "default-value", default_value: [{ key: "done", type: "number", value: "7" }] }),
      { nodeTypes },
    );
    expect(r.status).toBe("partial-succeeded");
    expect(r.outputs.done).toBe(7);
    expect(r.outputs.out).toBe("ok:7");
    expect(String(r.outputs.msg)).toMatch(/timed out/);
  });

  it("fail-branch: the fail-branch edge is taken and the source edge skipped", async () => {
    const r = await runWorkflow(timed({ error_strategy: "fail-branch" }), { nodeTypes });
    expect(r.status).toBe("partial-succeeded");
    expect(r.outputs.out).toBe("handled:node.timeout");
    expect(r.trace.map((t) => t.nodeId)).not.toContain("ok");
  });

  it("retries apply to a timeout before the strategy", async () => {
    const r = await runWorkflow(
      timed({
        error_strategy: "fail-branch",
        retry_config: { retry_enabled: true, max_retries: 2, retry_interval: 1 },
      }),
      { nodeTypes },
    );
    expect(r.trace.filter((t) => t.nodeId === "slow").map((t) => t.status)).toEqual(["failed", "failed", "failed"]);
    expect(r.outputs.out).toBe("handled:node.timeout");
  });
});
