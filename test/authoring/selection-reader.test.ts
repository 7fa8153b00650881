/**
 * The node-selection reader on the shapes real answers use (written here in our own words, modelled on the
 * recorded answers of the upstream models that the benchmark's judge passed).
 */
import { describe, expect, it } from "vitest";
import { parseNodeSelection, readNodeSelection } from "../../src/authoring/repair/index.js";
import { checkSelection, evaluatePassSuite, type Instruction, type Suite } from "../../src/eval/pass.js";

describe("readNodeSelection", () => {
  it("keeps commas inside parentheses with their item", () => {
    const sel =
      "1. Start\n2. LLM (writes the headline)\n3. LLM (writes the body)\n4. Template (for joining headline, body, and teaser)\n5. End";
    expect(parseNodeSelection(sel)).toEqual(["start", "llm", "template-transform", "end"]);
    // An unclosed note still leaves the name before it.
    expect(parseNodeSelection("Start, LLM (2 for docs, 1 for images), End")).toEqual(["start", "llm", "end"]);
  });

  it("reads numbered lines with a description after a dash", () => {
    const sel =
      "These nodes are needed:\n1. Start - takes the brief from the user\n2. LLM - turns the brief into an image prompt\n3. Text to Image - draws the picture\n4. End - returns prompt and picture";
    const r = readNodeSelection(sel);
    expect(r.declared).toEqual(["start", "llm", "text2image", "end"]);
    expect(r.unrecognised).toEqual(["These nodes are needed:"]);
  });

  it("reads tag-style lists", () => {
    expect(parseNodeSelection("<Start></Start><LLM></LLM><Text to Speech></Text to Speech><End></End>")).toEqual([
      "start",
      "llm",
      "tts",
      "end",
    ]);
    expect(parseNodeSelection("<list><item>Start</item><item>Markdown Exporter</item></list>")).toEqual([
      "start",
      "markdown-exporter",
    ]);
  });

  it("reads a delta on the existing workflow: previous types + added − removed", () => {
    const sel =
      "I will change the existing workflow as follows:\n1. Keeping Start (id: 1) and LLM (id: 2) nodes\n2. Adding a new LLM node (id: 3) - rewrites the story as Markdown\n3. Adding a Markdown Exporter node (id: 4) - makes the slides\n4. Modifying the End node (id: 5) - returns text and slides\n5. Removing the TTS node from the previous version";
    const r = readNodeSelection(sel, { previous: ["start", "llm", "tts", "end"] });
    expect(r.delta).toBe(true);
    expect(r.removed).toEqual(["tts"]);
    expect(r.declared.sort()).toEqual(["end", "llm", "markdown-exporter", "start"]);
    const added = readNodeSelection(
      "I will add this node to the existing workflow:\n1. Text to Speech (TTS) - reads the story aloud\n2. Modify the End node - returns the audio",
      { previous: ["start", "llm", "end"] },
    );
    expect(added.declared.sort()).toEqual(["end", "llm", "start", "tts"]);
    // Without the previous round only what is written counts.
    expect(readNodeSelection("I will add this node to the existing workflow:\n1. Text to Speech").declared).toEqual([
      "tts",
    ]);
  });

  it("still reads the plain shapes", () => {
    expect(parseNodeSelection("Start, Iteration, Iteration-Start, LLM (x3 inside iteration), Template, End")).toEqual([
      "start",
      "iteration",
      "iteration-start",
      "llm",
      "template-transform",
      "end",
    ]);
    expect(parseNodeSelection("Start\nDocument Extractor\nLLM\nEnd")).toEqual([
      "start",
      "document-extractor",
      "llm",
      "end",
    ]);
    expect(parseNodeSelection("If the file is a PDF, Start")).toEqual(["start"]);
  });
});

describe("step_1_4 with the reader", () => {
  const json = (types: string[]) => ({ nodes_info: types.map((type, i) => ({ id: String(i + 1), type })) });

  it("passes the shapes the benchmark's judge passed", () => {
    expect(
      checkSelection(
        "1. Start - gets the topic\n2. LLM - writes the story\n3. End - returns it",
        json(["start", "llm", "end"]),
        ["llm"],
      ).ok,
    ).toBe(true);
    expect(checkSelection("<Start></Start><LLM></LLM><End></End>", json(["start", "llm", "end"]), ["llm"]).ok).toBe(
      true,
    );
  });

  it("evaluatePassSuite hands round k the node types of round k−1", async () => {
    const ins = (round: number, related: string[]): Instruction => ({
      key: `Story_${round}`,
      task: "Story",
      round,
      domain: "AIGC",
      query: "q",
      check: { input_var: ["title"], output_var: ["story"], related_nodes: related },
    });
    const suite: Suite = {
      dir: "/x",
      instructions: new Map([
        ["Story_1", ins(1, ["llm"])],
        ["Story_2", ins(2, ["llm", "tts"])],
      ]),
    };
    const start = { id: "1", type: "start", param: { variables: [["title", "string"]] } };
    const llm = { id: "2", type: "llm", param: { system: "Write.", user: "{{#'1'.title#}}" } };
    const text = (sel: string, nodes: unknown[], edges: unknown[]) =>
      `<node_selection>${sel}</node_selection><design_principle>d</design_principle><workflow>${JSON.stringify({ nodes_info: nodes, edges })}</workflow>`;
    const r1 = text(
      "Start, LLM, End",
      [start, llm, { id: "3", type: "end", param: { outputs: [["story", ["text", "2"]]] } }],
      [
        ["1", 0, "2"],
        ["2", 0, "3"],
      ],
    );
    const r2 = text(
      "I will add one node to the existing workflow:\n1. Text to Speech - reads it aloud\n2. Modify the End node - returns the audio",
      [
        start,
        llm,
        { id: "3", type: "tts", param: { text: "{{#'2'.text#}}" } },
        { id: "4", type: "end", param: { outputs: [["story", ["files", "3"]]] } },
      ],
      [
        ["1", 0, "2"],
        ["2", 0, "3"],
        ["3", 0, "4"],
      ],
    );
    const res = await evaluatePassSuite(
      suite,
      [
        { task: "Story", round: 1, text: r1 },
        { task: "Story", round: 2, text: r2 },
      ],
      "m",
    );
    expect(res.items.map((i) => [i.instruction.key, i.strict.passDeterministic, i.strict.failStep])).toEqual([
      ["Story_1", true, undefined],
      ["Story_2", true, undefined],
    ]);
  });
});
