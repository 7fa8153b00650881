"use strict";
// What bin/weft runs: the CLI's CommonJS bundle (weft.cjs, made by scripts/build.mjs), compiled with the V8 code
// cache the build made for it (weft.cjs.cache), so a start deserialises the functions it needs instead of
// compiling ~3 MB of JavaScript. V8 checks the cache itself: one made by another V8 version or under other V8
// flags is refused, and the bundle is then compiled from source, as without a cache. Only the build writes the
// cache (WEFT_WRITE_CODE_CACHE=1, at the end of its warm-up command); a running CLI never does.
const { readFileSync, renameSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const vm = require("node:vm");

const file = join(__dirname, "weft.cjs");
const cacheFile = `${file}.cache`;
const writing = process.env.WEFT_WRITE_CODE_CACHE === "1";
let cachedData;
if (!writing) {
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (a build that could not make one): compile from source.
  }
}
// V8 keeps the script name a cache was made under (stack traces show it), so the build, which makes the cache in
// the tree it is about to move into place, names the bundle by its final path.
// The bundle is ASCII (the build makes it so): read as latin1, it is the same string, decoded without UTF-8's cost.
const script = new vm.Script(Module.wrap(readFileSync(file, "latin1")), {
  filename: (writing && process.env.WEFT_CODE_CACHE_NAME) || file,
  cachedData,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
if (writing) {
  delete process.env.WEFT_WRITE_CODE_CACHE;
  delete process.env.WEFT_CODE_CACHE_NAME;
  process.once("exit", () => {
    writeFileSync(`${cacheFile}.tmp`, script.createCachedData());
    renameSync(`${cacheFile}.tmp`, cacheFile);
  });
}
const bundle = new Module(file, module);
bundle.filename = file;
bundle.paths = Module._nodeModulePaths(__dirname);
script.runInThisContext()(bundle.exports, Module.createRequire(file), bundle, file, __dirname);
