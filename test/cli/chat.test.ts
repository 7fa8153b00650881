// `weft chat` as a user drives it (a real subprocess reading its stdin), against the replay model: a
// rejected update shows its diagnostics and says nothing changed; a proposal is shown with its diff and
// changes nothing until /apply; /undo restores the file; the session resumes with its memory.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWorkflowText } from "../../src/dsl/load.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "bin/weft");
const example = join(root, "examples/word-stats.yml");
const dir = mkdtempSync(join(tmpdir(), "weft-chat-"));
let llm: ReplayServer;

beforeAll(async () => {
  llm = await startReplayServer();
});
afterAll(async () => llm.close());

/** Run `weft chat` with these lines on stdin; the replay server answers while it runs. */
function chat(
  args: string[],
  lines: string[],
  command = "chat",
): Promise<{ code: number | null; out: string; err: string }> {
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("WEFT_") && !k.endsWith("_API_KEY")),
    ),
    WEFT_LLM_BASE_URL: llm.openaiBaseURL,
    WEFT_LLM_MODEL: "replay",
  };
  return new Promise((done, fail) => {
    const p = spawn(bin, [command, ...args], { cwd: dir, env });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("error", fail);
    p.on("close", (code) => done({ code, out, err }));
    p.stdin.end(`${lines.join("\n")}\n`);
  });
}

const answer = (wf: unknown, words = "Done: I changed it.") =>
  `<node_selection>as shown</node_selection>\n<design_principle>${words}</design_principle>\n<workflow>${JSON.stringify(wf)}</workflow>`;

/** The workflow the model was shown this turn (a retry's last message is the feedback, not the workflow). */
const shown = (req: { body: any }) => {
  const user = (req.body.messages as any[])
    .filter((m) => m.role === "user" && m.content.includes("<current_workflow>"))
    .at(-1).content as string;
  return JSON.parse(/<current_workflow>\s*([\s\S]*?)\s*<\/current_workflow>/.exec(user)![1]!);
};

describe("weft chat", () => {
  it("rejected update → diagnostics and 'Nothing changed'; proposal → /diff → /apply → /undo; resumes with memory", async () => {
    const out = join(dir, "edited.yml");
    const db = join(dir, "chat.db");
    const before = readFileSync(example, "utf8");
    // Turn 1: every attempt references an output that does not exist.
    const broken = (req: { body: any }) => {
      const c = shown(req);
      c.nodes_info.find((n: any) => n.type === "end").param.outputs = [["x", ["nope", "1"]]];
      return reply.text(answer(c));
    };
    // Turn 2: a title change.
    const renamed = (req: { body: any }) => {
      const c = shown(req);
      c.nodes_info.find((n: any) => n.type === "end").title = "Results";
      return reply.text(answer(c, "Renamed the end node."));
    };
    llm.enqueue(broken, broken, renamed);
    const r = await chat(
      ["--from", example, "--db", db, "-o", out, "--attempts", "2"],
      ["output x instead", "/apply", "rename the end node to Results", "/diff", "/apply", "/undo", "/quit"],
    );
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    const session = /^session (\S+)/m.exec(r.out)![1]!;
    // The rejected update: its diagnostics, and plainly that nothing changed.
    expect(r.out).toMatch(/rejected/i);
    expect(r.out).toContain("ref.");
    expect(r.out).toContain("Nothing changed.");
    expect(r.out).toContain("there is no proposal to apply");
    // The proposal: shown with its field-level change before anything is written.
    expect(r.out).toMatch(/proposal prop_\S+ \(not applied yet\)/);
    expect(r.out).toContain("title");
    expect(r.out).toContain("Results");
    expect(r.out).toMatch(/applied prop_\S+ to the draft \(revision 2\)/);
    expect(r.out).toContain(`wrote ${out}`);
    expect(r.out).toMatch(/undone: prop_\S+ taken out of the draft \(revision 3\)/);
    const original = parseWorkflowText(before).workflow;
    expect(parseWorkflowText(readFileSync(out, "utf8")).workflow.nodes).toEqual(original.nodes);
    expect(readFileSync(out, "utf8")).toMatch(/version: 0\.6\.0/);

    // Resumed: the model is given the earlier turns and what became of them.
    llm.reset();
    llm.enqueue(reply.text("We renamed the end node, then undid it."));
    const again = await chat(
      ["--session", session, "--db", db, "-o", out, "--attempts", "1"],
      ["what did we do so far?", "/quit"],
    );
    expect(again.code).toBe(0);
    const memory = JSON.stringify(llm.requests[0]!.body.messages);
    expect(memory).toContain("output x instead");
    expect(memory).toContain("rename the end node to Results");
    expect(memory).toMatch(/rejected/i);
  }, 120_000);

  it("weft generate --from: 'Change nothing.' answered unchanged writes the same workflow and says where", async () => {
    llm.reset();
    llm.enqueue((req) => reply.text(answer(shown(req), "Nothing to change.")));
    const out = join(dir, "same.yml");
    const r = await chat(["Change nothing.", "--from", example, "-o", out], [], "generate");
    expect(r.code).toBe(0);
    expect(r.err).toContain("attempt 1: passed");
    expect(r.err).toContain(`wrote ${out}`);
    const a = parseWorkflowText(readFileSync(example, "utf8")).workflow;
    const b = parseWorkflowText(readFileSync(out, "utf8")).workflow;
    expect(b.nodes).toEqual(a.nodes);
    expect(b.edges).toEqual(a.edges);
    expect(readFileSync(out, "utf8")).toMatch(/version: 0\.6\.0/);
  }, 60_000);
});
