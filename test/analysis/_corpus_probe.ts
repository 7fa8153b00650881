import fs from "node:fs";
import path from "node:path";
import "../../src/nodes/index.js";
import { importDify } from "../../src/dsl/dify/index.js";
import { analyse } from "../../src/analysis/index.js";
const root = "/work/shared/corpus/dify-dsl";
const lines = fs.readFileSync(path.join(root, "MANIFEST.tsv"), "utf8").trim().split("\n").slice(1);
const hist = new Map<string, number>(); let ok = 0, impFail = 0, crash = 0; const samples = new Map<string, string[]>();
for (const l of lines) {
  const file = l.split("\t")[0]!;
  let w;
  try { w = importDify(fs.readFileSync(path.join(root, file), "utf8"), { nameHint: file }).workflow; } catch (e) { impFail++; continue; }
  try {
    const r = analyse(w); ok++;
    for (const d of r.diagnostics) { const k = `${d.severity} ${d.code}`; hist.set(k, (hist.get(k) ?? 0) + 1); const s = samples.get(k) ?? []; if (s.length < 3) s.push(`${file.slice(0,60)} :: ${d.nodeId} ${d.field ?? ""} ${d.message.slice(0, 200)}`); samples.set(k, s); }
  } catch (e) { crash++; console.log("CRASH", file, e); }
}
console.log({ ok, impFail, crash });
for (const [k, v] of [...hist].sort((a, b) => b[1] - a[1])) { console.log(v, k); for (const s of samples.get(k)!) console.log("    ", s); }
