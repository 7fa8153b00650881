/**
 * The service API's stream as Dify clients read it: every event of a branching workflow with an iteration in
 * Dify's order, and replay: a client that connects after the run, one that drops and reconnects with
 * Last-Event-ID, and one that asks for Dify's state snapshot miss nothing and get nothing twice.
 */
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { v1ServerPerFile } from "../../support/per-file.js";
import { reply } from "../../support/replay-server.js";
import { branchingWorkflow, chatWorkflow } from "../../support/v1-apps.js";

const s = v1ServerPerFile();

interface Sse {
  id?: string;
  data: Record<string, any>;
}

/** Read an SSE body; `until` returning true aborts the connection right after that event (a dropped client). */
async function read(res: Response, ctrl?: AbortController, until?: (e: Sse, all: Sse[]) => boolean): Promise<Sse[]> {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  const out: Sse[] = [];
  let stop = false;
  const parser = createParser({
    onEvent: (e) => {
      if (stop) return;
      const ev = { id: e.id, data: JSON.parse(e.data) };
      out.push(ev);
      if (until?.(ev, out)) {
        stop = true;
        ctrl?.abort();
      }
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (e) {
    if (!stop) throw e;
  }
  return out;
}

const post = (key: string, path: string, body: unknown) =>
  fetch(`${s.v1}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (key: string, path: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${s.v1}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers }, signal });

/** `event` and, for node events, the node: what a Dify client branches on. */
const shape = (e: Sse) => (e.data.data?.node_id ? `${e.data.event}:${e.data.data.node_id}` : e.data.event);

describe("Dify stream order and replay", () => {
  it("sends every event of a branching workflow with an iteration, in Dify's order", async () => {
    const { key } = await s.app("order", branchingWorkflow());
    s.llm.enqueue(reply.text("Short and loud.", { chunks: ["Short ", "and ", "loud."] }));
    const evs = await read(
      await post(key, "/workflows/run", {
        inputs: { text: "a b", mode: "each" },
        response_mode: "streaming",
        user: "u",
      }),
    );
    expect(evs.map(shape)).toEqual([
      "workflow_started",
      "node_started:start",
      "node_finished:start",
      "node_started:words",
      "node_finished:words",
      "node_started:branch",
      "node_finished:branch",
      "iteration_started:it",
      "iteration_next:it",
      "node_started:up",
      "node_finished:up",
      "iteration_next:it",
      "node_started:up",
      "node_finished:up",
      "iteration_completed:it",
      "node_started:joined",
      "node_finished:joined",
      "node_started:agg",
      "node_finished:agg",
      "node_started:comment",
      "text_chunk",
      "text_chunk",
      "text_chunk",
      "node_finished:comment",
      "node_started:end",
      "node_finished:end",
      "workflow_finished",
    ]);
    const runId = evs[0]!.data.workflow_run_id;
    // Every event names the run and task; node events inside the iteration name it; the branch took "true".
    for (const e of evs) expect(e.data).toMatchObject({ task_id: runId, workflow_run_id: runId });
    const ups = evs.filter((e) => e.data.data?.node_id === "up");
    expect(ups.map((e) => e.data.data.iteration_id)).toEqual(["it", "it", "it", "it"]);
    expect(evs.filter((e) => e.data.event === "iteration_next").map((e) => e.data.data.index)).toEqual([0, 1]);
    expect(evs.find((e) => shape(e) === "node_finished:branch")!.data.data.outputs).toMatchObject({
      selected_case_id: "true",
    });
    expect(evs.filter((e) => e.data.event === "text_chunk").map((e) => e.data.data)).toEqual([
      { text: "Short ", from_variable_selector: ["comment", "text"] },
      { text: "and ", from_variable_selector: ["comment", "text"] },
      { text: "loud.", from_variable_selector: ["comment", "text"] },
    ]);
    expect(evs.at(-1)!.data.data).toMatchObject({
      status: "succeeded",
      outputs: { result: "A B", comment: "Short and loud." },
      error: null,
    });
    // Each node execution's started and finished share one id; ids are unique per execution.
    const started = evs.filter((e) => e.data.event === "node_started").map((e) => e.data.data.id);
    const finished = evs.filter((e) => e.data.event === "node_finished").map((e) => e.data.data.id);
    expect(finished).toEqual(started);
    expect(new Set(started).size).toBe(started.length);
    // Every event has an id a reconnecting client can send back.
    expect(evs.every((e) => /^\d+\.\d+$/.test(e.id ?? ""))).toBe(true);
  }, 60_000);

  it("sends a chat turn's message events, then workflow_finished, then message_end with the usage (as Dify)", async () => {
    const { key } = await s.app("chat-order", chatWorkflow());
    s.llm.enqueue(reply.text("Hi there", { chunks: ["Hi ", "there"] }));
    const evs = await read(
      await post(key, "/chat-messages", {
        inputs: { name: "Ann" },
        query: "hello",
        response_mode: "streaming",
        user: "u",
      }),
    );
    const kinds = evs.map((e) => e.data.event);
    expect(kinds[0]).toBe("workflow_started");
    expect(kinds.slice(-2)).toEqual(["workflow_finished", "message_end"]);
    // dify-ai-provider reads the usage off message_end, the stream's last event.
    expect(evs.at(-1)!.data.metadata.usage).toMatchObject({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
    });
    expect(kinds.indexOf("message")).toBeGreaterThan(kinds.indexOf("node_started"));
    expect(
      evs
        .filter((e) => e.data.event === "message")
        .map((e) => e.data.answer)
        .join(""),
    ).toBe("Hi there (turn 1, Ann)");
    const ids = new Set(evs.map((e) => e.data.message_id));
    expect(ids.size).toBe(1);
  }, 60_000);

  it("replays everything to a late client, and continues a dropped one after its Last-Event-ID", async () => {
    const { key } = await s.app("replay", branchingWorkflow());
    s.llm.enqueue(reply.text("one two three four five six", { chunkDelayMs: 150 }));
    const ctrl = new AbortController();
    const res = await fetch(`${s.v1}/workflows/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ inputs: { text: "x y z", mode: "each" }, response_mode: "streaming", user: "u" }),
      signal: ctrl.signal,
    });
    // The first client drops after the second text chunk, mid-run.
    const before = await read(res, ctrl, (_e, all) => all.filter((x) => x.data.event === "text_chunk").length === 2);
    const runId = before[0]!.data.workflow_run_id;
    const last = before.at(-1)!.id!;

    // A second client joins mid-run with Dify's state snapshot: what already ran, then the rest live.
    const snapshot = await read(await get(key, `/workflow/${runId}/events?user=u&include_state_snapshot=true`));
    // The first reconnects with its Last-Event-ID and gets exactly what it missed.
    const after = await read(await get(key, `/workflow/${runId}/events?user=u`, { "last-event-id": last }));
    // A third connects only after the run ended and gets the whole run.
    const late = await read(await get(key, `/workflow/${runId}/events?user=u`));

    expect(late.map(shape)[0]).toBe("workflow_started");
    expect(late.at(-1)!.data.event).toBe("workflow_finished");
    expect([...before, ...after].map((e) => e.id)).toEqual(late.map((e) => e.id));
    expect([...before, ...after].map((e) => e.data)).toEqual(late.map((e) => e.data));
    expect(after.length).toBeGreaterThan(0);
    expect(
      late
        .filter((e) => e.data.event === "text_chunk")
        .map((e) => e.data.data.text)
        .join(""),
    ).toBe("one two three four five six");

    // The snapshot starts with workflow_started and the executed nodes, without their details, then goes live.
    expect(snapshot[0]!.data.event).toBe("workflow_started");
    const snapNodes = snapshot.filter((e) => e.data.event === "node_finished").map((e) => e.data.data.node_id);
    expect(snapNodes).toEqual(expect.arrayContaining(["start", "words", "branch"]));
    expect(snapshot.at(-1)!.data.event).toBe("workflow_finished");
    expect(snapshot.at(-1)!.data).toEqual(late.at(-1)!.data);

    // The events endpoint is the run's end user's only.
    const other = await get(key, `/workflow/${runId}/events?user=someone-else`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: "not_found", status: 404 });
  }, 60_000);
});
