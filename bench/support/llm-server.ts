// The model server of bench/llm.ts in a process of its own, so that its CPU does not count against (or
// compete with) the client being measured. Prints its OpenAI base URL on stdout, exits when stdin closes.
import { reply, startReplayServer } from "../../test/support/replay-server.js";

const delayMs = Number(process.argv[2] ?? 200);
const server = await startReplayServer();
const answer = "Paris is the capital of France, and it has been for a long time.";
server.when((r) => r.api === "openai-chat" && r.stream, reply.text(answer, { delayMs }), { times: Infinity });
server.when(
  (r) => r.api === "openai-chat" && !r.stream,
  reply.json({ category_id: "1", category_name: "Geography" }, { delayMs }),
  {
    times: Infinity,
  },
);
process.stdout.write(`${server.openaiBaseURL}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  process.stdout.write(`requests ${server.requests.length} unmatched ${server.unmatched.length}\n`);
  void server.close().then(() => process.exit(0));
});
