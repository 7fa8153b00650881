/**
 * pass^k of an app's tests on a nondeterministic model: the loopback replay server answers the summary node
 * from a seeded random script (right or wrong), every case runs k=5 times, and the report's pass^k is the
 * project's formula (src/eval/metrics/passk.ts) over the outcomes the runs really had: C(c,5)/C(5,5) per case.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AppTests } from "../../src/apptests/service.js";
import { importDify } from "../../src/dsl/dify/index.js";
import { passHatKTask } from "../../src/eval/metrics/passk.js";
import { createLlmService } from "../../src/llm/service.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const FIXTURE = join(import.meta.dirname, "../fixtures/apptests/two-llm.yml");
let server: ReplayServer;
let stores: Stores;

beforeAll(async () => {
  server = await startReplayServer();
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  server.when(
    (r) => r.api === "openai-chat",
    (r) => {
      const user = String(r.body.messages.at(-1).content);
      if (user.startsWith("Title for:")) return reply.text("T");
      return reply.text(random() < 0.6 ? "refund ok" : "no idea");
    },
    { times: Number.POSITIVE_INFINITY },
  );
  stores = await openStores(":memory:");
});
afterAll(async () => {
  await stores?.close();
  await server?.close();
});

it("k=5 on a scripted-random model: the report's pass^k is C(c,5)/C(5,5) averaged over cases", async () => {
  const { workflow } = importDify(readFileSync(FIXTURE, "utf8"));
  const { app } = await stores.apps.createApp({ name: "t", mode: "workflow", description: "" }, workflow, "import", {
    publish: true,
  });
  const llm = createLlmService({
    endpoints: { replay: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
    default: "replay",
    providers: { openai: "replay" },
    retry: { maxRetries: 0 },
  });
  const tests = new AppTests({
    stores,
    services: { llm, sandbox: createSandbox(), now: () => new Date(), random: Math.random },
  });
  for (const text of ["a b", "c d e", "f"])
    await tests.add(app.id, {
      name: text,
      inputs: { text },
      expect: [{ output: "summary", check: "contains", value: "refund" }],
    });
  const r = await tests.run(app.id, { k: 5, concurrency: 2 });
  expect(r.k).toBe(5);
  expect(r.cases.every((c) => c.trials.length === 5)).toBe(true);
  expect(r.cases[0]!.trials[0]!.failure?.kind === "error" ? r.cases[0]!.trials[0]!.failure : "ok").toBe("ok");
  const successes = r.cases.map((c) => c.trials.filter((t) => t.pass).length);
  // The script really is mixed: some runs pass and some fail.
  expect(successes.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  expect(successes.reduce((a, b) => a + b, 0)).toBeLessThan(15);
  const expected = successes.reduce((s, c) => s + passHatKTask(c, 5, 5), 0) / 3;
  expect(r.passHatK).toBeCloseTo(expected, 12);
  for (let j = 1; j <= 5; j++)
    expect(r.curve[j - 1]).toBeCloseTo(successes.reduce((s, c) => s + passHatKTask(c, 5, j), 0) / 3, 12);
  expect(r.passed).toBe(successes.filter((c) => c === 5).length);
  const failing = r.cases.find((c) => !c.pass);
  expect(failing).toBeDefined();
  expect(failing!.failure?.message).toBe('summary: expected to contain "refund", got "no idea"');
});
