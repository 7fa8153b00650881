// Test files share their worker's modules (vitest `isolate: false`), and so its process.env: a file that sets a
// variable for the servers it starts (a signing key, seconds-resolution cron) must not hand it to the next file.
// This runs before each file's own code and puts the environment back after its last hook.
import { afterAll } from "vitest";

const before = { ...process.env };

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
  Object.assign(process.env, before);
});
