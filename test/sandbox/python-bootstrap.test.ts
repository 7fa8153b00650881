/**
 * Nothing of the Python bootstrap is reachable from guest code (issue 16, item 4). The probe reached
 * the bootstrap's globals through `__import__.__globals__`: the original import (so `import os`
 * worked), the reply nonce and the raw stdout (so a guest could forge its reply and hide a violation
 * it caught), and os functions CPython does not audit (access, readlink, uname, getppid; stat is kept since issue 35, as os.path.exists needs it and
 * inside the OS jail it sees only the read-only system directories).
 * Each test below failed before the bootstrap was split into a trusted main thread and a guest
 * thread; the last one walks everything a guest can reach looking for the nonce and the raw fds.
 */
import { describe, expect, it } from "vitest";
import { expectHostHealthy, expectSandboxError, sandbox } from "./helpers.js";

const py = (code: string, limits?: Record<string, number>) => ({
  language: "python3" as const,
  code,
  inputs: {},
  limits,
});
const run = (code: string, limits?: Record<string, number>) =>
  sandbox.run(py(code, limits)) as Promise<Record<string, any>>;

/** Names the bootstrap used to keep in the globals `__import__` exposed. */
const BOOTSTRAP_NAMES = [
  "_nonce",
  "_req",
  "_stdout",
  "_stdin",
  "_orig_import",
  "_state",
  "_reply",
  "_hook",
  "_ALLOWED",
  "os",
  "sys",
  "json",
  "resource",
];

describe("the __import__.__globals__ family reaches nothing of the bootstrap", () => {
  it("__import__.__globals__ holds only the guest-side helpers", async () => {
    const r = await run("def main():\n    return {'keys': sorted(__import__.__globals__)}\n");
    for (const name of BOOTSTRAP_NAMES) expect(r.keys).not.toContain(name);
    expect(JSON.stringify(r)).not.toMatch(/__weft_result_/);
  });

  it("the probe's reads through __import__.__globals__ find nothing", async () => {
    const r = await run(`
def main():
    g = __import__.__globals__
    return {k: k in g for k in ('_orig_import', '_nonce', '_stdout', '_state', '_reply', 'os', 'sys')}
`);
    expect(Object.values(r).every((v) => v === false)).toBe(true);
  });

  it("globals of every other reachable function are the guest's too", async () => {
    const r = await run(`
import logging, traceback
def main():
    sinks = [sys_.stdout.write.__globals__, sys_.stderr.flush.__globals__]
    frames = []
    f = sys_._getframe()
    while f is not None:
        frames.append([f.f_code.co_filename, sorted(k for k in f.f_globals if k.startswith('_') and not k.startswith('__'))])
        f = f.f_back
    return {'sinks': [sorted(s) for s in sinks], 'frames': frames}
sys_ = logging.sys
`);
    for (const keys of r.sinks) for (const name of BOOTSTRAP_NAMES) expect(keys).not.toContain(name);
    // The guest's own frame, then the runner that called main: nothing below it.
    expect(r.frames.map((f: [string, string[]]) => f[0])).toEqual(["<code>", "<weft>"]);
    for (const [, keys] of r.frames) for (const name of BOOTSTRAP_NAMES) expect(keys).not.toContain(name);
  });

  it("the original import from the guard's defaults gives an os without its unaudited functions", async () => {
    const r = await run(`
def main():
    os = __import__.__kwdefaults__['_imp']('os')
    names = ['access', 'readlink', 'uname', 'getppid', 'getpid', 'getcwd', 'write', 'read',
             'dup', 'dup2', 'close', 'pipe', '_exit', 'statvfs', 'cpu_count', 'getloadavg', 'setuid']
    return {'present': [n for n in names if hasattr(os, n)]}
`);
    expect(r.present).toEqual([]);
  });

  it("no module reachable through sys.modules still holds a removed os function", async () => {
    const r = await run(`
import random, logging, uuid
def main():
    hits = []
    for mname, m in list(logging.sys.modules.items()):
        for k, v in list(getattr(m, '__dict__', {}).items()):
            if type(v).__name__ == 'builtin_function_or_method' and getattr(v, '__module__', '') == 'posix' \\
               and v.__name__ in ('access', 'readlink', 'uname', 'getppid', 'getcwd', 'write', 'dup2', '_exit'):
                hits.append(mname + '.' + k)
    return {'hits': hits, 'random_os': hasattr(random._os, 'readlink'), 'posix': 'posix' in logging.sys.modules}
`);
    expect(r.hits).toEqual([]);
    expect(r.random_os).toBe(false);
  });

  it("an audited os function reached the same way is still refused", async () => {
    await expectSandboxError(
      py("def main():\n    os = __import__.__kwdefaults__['_imp']('os')\n    return {'x': os.remove('/tmp/x')}\n"),
      "sandbox.forbidden",
      /os\.remove/,
    );
  });
});

describe("the reply cannot be forged and a violation cannot be hidden", () => {
  it("raw stdout is out of reach: every route fails and the real result stands", async () => {
    const r = await run(`
import random, logging, io
def main():
    tried = {}
    forged = b'\\n__weft_result_guess__\\n{"ok":true,"result":{"forged":true}}\\n'
    for name, attempt in [
        ('os.write', lambda: random._os.write(1, forged)),
        ('sys.__stdout__.buffer', lambda: logging.sys.__stdout__.buffer.write(forged)),
        ('sys.stdout.buffer', lambda: logging.sys.stdout.buffer.write(forged)),
        ('posix.write', lambda: logging.sys.modules['posix'].write(1, forged)),
    ]:
        try:
            attempt()
            tried[name] = 'worked'
        except Exception as e:
            tried[name] = type(e).__name__
    return {'tried': tried}
`);
    expect(r.forged).toBeUndefined();
    expect(Object.values(r.tried)).not.toContain("worked");
  });

  it("opening fd 1 directly is refused", async () => {
    await expectSandboxError(
      py("import io\ndef main():\n    io.FileIO(1, 'w').write(b'x')\n    return {}\n"),
      "sandbox.forbidden",
      /file access/,
    );
  });

  it("a caught violation still fails the run, however it is caught", async () => {
    for (const code of [
      "def main():\n    try:\n        open('/etc/passwd')\n    except BaseException:\n        pass\n    return {'ok': True}\n",
      "import contextlib\ndef main():\n    with contextlib.suppress(BaseException):\n        __import__('socket')\n    return {'ok': True}\n",
      "def main():\n    try:\n        import subprocess\n    except BaseException:\n        pass\n    return {'ok': True}\n",
    ]) {
      await expectSandboxError(py(code), "sandbox.forbidden");
    }
  });

  it("frames of the main thread are refused", async () => {
    await expectSandboxError(
      py("import logging\ndef main():\n    return {'n': len(logging.sys._current_frames())}\n"),
      "sandbox.forbidden",
      /_current_frames/,
    );
    await expectSandboxError(
      py("import logging\ndef main():\n    logging.sys.settrace(lambda *a: None)\n    return {}\n"),
      "sandbox.forbidden",
      /settrace/,
    );
  });

  it("the main thread cannot be interrupted and gc is out of reach", async () => {
    const r = await run(`
import logging
def main():
    t = logging.sys.modules['_thread']
    return {'interrupt_main': hasattr(t, 'interrupt_main'), 'gc': 'gc' in logging.sys.modules,
            'signal': '_signal' in logging.sys.modules, 'main': '__main__' in logging.sys.modules}
`);
    expect(r).toEqual({ interrupt_main: false, gc: false, signal: false, main: false });
    await expectSandboxError(py("def main():\n    __import__('gc')\n    return {}\n"), "sandbox.forbidden", /gc/);
  });

  it("interpreter paths and the bootstrap's command line are scrubbed", async () => {
    const r = await run(`
import logging
def main():
    s = logging.sys
    return {'exe': s.executable, 'prefix': s.prefix, 'argv': s.orig_argv, 'path': s.path}
`);
    expect(r).toEqual({ exe: "", prefix: "", argv: [], path: [] });
  });

  it("nothing a guest can reach holds the nonce, the raw stdout or a removed os function", async () => {
    // A breadth-first walk over everything reachable from the guest's roots: modules, builtins,
    // frames, functions (globals, defaults, closures), object and class dicts.
    const r = await run(
      `
import logging, types, re
NONCE = re.compile(r'__weft_result_[0-9a-f]{24}__')
NONCE_B = re.compile(rb'__weft_result_[0-9a-f]{24}__')
def main():
    sys_ = logging.sys
    roots = [sys_.modules, __builtins__, globals(), sys_._getframe(), __import__, sys_.stdout, sys_.stdin]
    seen = set()
    queue = list(roots)
    found = []
    n = 0
    while queue and n < 300000:
        o = queue.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        n += 1
        t = type(o)
        if t is str:
            if NONCE.search(o):
                found.append('nonce')
            continue
        if t is bytes:
            if NONCE_B.search(o):
                found.append('nonce bytes')
            continue
        if t.__name__ in ('BufferedWriter', 'BufferedReader', 'FileIO', 'TextIOWrapper'):
            try:
                if o.fileno() in (0, 1, 2):
                    found.append('fd %d' % o.fileno())
            except Exception:
                pass
        if t is types.BuiltinFunctionType and getattr(o, '__module__', '') == 'posix' and o.__name__ in ('write', '_exit', 'dup2'):
            found.append('posix.' + o.__name__)
        if t is dict:
            queue.extend(o.keys()); queue.extend(o.values())
        elif t in (list, tuple, set, frozenset):
            queue.extend(o)
        elif t is types.FunctionType:
            queue.extend([o.__globals__, o.__defaults__, o.__kwdefaults__, o.__closure__, o.__dict__])
        elif t is types.CellType:
            try:
                queue.append(o.cell_contents)
            except ValueError:
                pass
        elif t is types.FrameType:
            queue.extend([o.f_globals, o.f_locals, o.f_back, o.f_builtins])
        elif t is types.MethodType:
            queue.extend([o.__func__, o.__self__])
        else:
            d = getattr(o, '__dict__', None)
            if type(d) in (dict, types.MappingProxyType):
                queue.extend(d.values())
            if isinstance(o, type):
                queue.extend(o.__dict__.values())
    return {'found': sorted(set(found)), 'walked': n}
`,
      { timeoutMs: 20_000 },
    );
    expect(r.found).toEqual([]);
    expect(r.walked).toBeGreaterThan(10_000);
    await expectHostHealthy("python3");
  }, 60_000);
});

describe("guest conveniences that no longer need the bootstrap", () => {
  it("traceback.format_exc shows the user's line without reading any file", async () => {
    const r = await run(`
import traceback, json
def main():
    try:
        json.loads('{bad')
    except ValueError:
        return {'tb': traceback.format_exc()}
`);
    expect(r.tb).toMatch(/json\.loads\('\{bad'\)/);
    expect(r.tb).toMatch(/JSONDecodeError/);
  });
});
