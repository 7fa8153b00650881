/**
 * The program `python3 -I -S -B -c <this>` runs before any user code. It reads one JSON request
 * from stdin, preloads the allowed standard modules, lowers resource limits, removes the os
 * functions CPython does not audit, installs an audit hook that fails closed, and runs the user's
 * main in a thread of its own.
 *
 * Two parts that never share an object the guest can reach:
 * - The trusted part (this module's `_boot` frame, the audit hook, the reply) lives in the main
 *   thread, which only waits in C while the guest runs. A guest can reach frames of its own thread
 *   only: its thread starts in C (`start_new_thread`), so nothing of the bootstrap is below it;
 *   `sys._current_frames`, `gc` and tracing are audited and refused; SIGINT is ignored and
 *   `interrupt_main` removed, so nothing can make the main thread run guest code; the cyclic GC is
 *   off, so no guest finalizer runs there either. The nonce, the real stdout and `os._exit` exist
 *   only as locals of `_boot` and keyword defaults of the hook.
 * - The guest part (the runner that calls main, the stdout sink, the import guard) is built with
 *   `exec` in namespaces of its own and holds nothing the guest could not do itself.
 *
 * The audit hook is the boundary: CPython raises audit events from C for every file, socket and
 * process operation, however the guest reached the function. On a refused event the hook writes
 * the `forbidden` reply itself and ends the process at once, so a violation can be neither caught
 * nor hidden, and the hook's frame never appears in a guest traceback. After the gate opens the
 * trusted code looks up no global or builtin name (the guest can rebind those); every object it
 * uses was bound beforehand.
 */
export const PYTHON_BOOTSTRAP = String.raw`
import sys, json, resource, builtins, os, _thread, gc, time, _signal, linecache, io, types
from _json import encode_basestring as _enc

# Pure standard modules Dify code commonly uses. Nothing can be imported after the lockdown, so
# lazily imported helpers (_strptime, codecs) are loaded here too.
_PRELOAD = """json re math cmath datetime time calendar collections collections.abc itertools functools
operator random secrets hashlib hmac base64 binascii string textwrap unicodedata decimal fractions
numbers statistics copy heapq bisect array struct uuid typing dataclasses enum abc contextlib pprint
difflib html html.entities html.parser urllib.parse zlib csv traceback types keyword _strptime graphlib
io logging
encodings.latin_1 encodings.ascii encodings.utf_16 encodings.utf_32 encodings.utf_16_le encodings.utf_16_be
encodings.utf_8_sig encodings.utf_7 encodings.idna encodings.punycode encodings.cp1252 encodings.cp437
encodings.hex_codec encodings.base64_codec encodings.unicode_escape encodings.raw_unicode_escape
encodings.gbk encodings.gb2312 encodings.gb18030 encodings.big5 encodings.shift_jis encodings.euc_jp
encodings.euc_kr encodings.iso8859_1 encodings.iso8859_15""".split()

# Modules user code may not import even though they are loaded (the standard library needs them).
_DENY = frozenset("""os posix nt sys subprocess socket _socket ssl ctypes _ctypes importlib _imp
_frozen_importlib _frozen_importlib_external zipimport marshal pickle _pickle shelve _io builtins
gc inspect code codeop runpy signal _signal threading _thread multiprocessing concurrent asyncio
resource pty fcntl mmap select selectors shutil pathlib tempfile glob fnmatch posixpath ntpath genericpath
urllib.request http ftplib smtplib telnetlib socketserver xmlrpc webbrowser platform sysconfig site
_posixsubprocess faulthandler tracemalloc sqlite3 dbm zipfile tarfile lzma bz2 gzip""".split())

# posix functions that stay: those CPython audits (the hook refuses them with a clear message) and
# pure ones. Every other builtin of os/posix is removed: stat, access, readlink, uname, getppid,
# getcwd, write, dup2 ... are not audited and would show host paths and ids or reach raw fds.
_KEEP_POSIX = frozenset("""open chdir fchdir chmod fchmod lchmod chown fchown lchown chflags lchflags
execv execve fork forkpty getxattr setxattr listxattr removexattr kill killpg link listdir lockf mkdir
posix_spawn posix_spawnp putenv unsetenv remove unlink rename replace rmdir scandir symlink system
truncate ftruncate utime urandom fspath strerror getuid geteuid getgid getegid WCOREDUMP WEXITSTATUS
WIFCONTINUED WIFEXITED WIFSIGNALED WIFSTOPPED WSTOPSIG WTERMSIG major minor makedev""".split())

# Events plain computation raises. Everything else ends the run.
_ALLOWED = frozenset((
    "compile", "exec", "object.__getattr__", "object.__setattr__", "object.__delattr__",
    "sys._getframe", "builtins.id", "function.__new__", "time.sleep", "sys.excepthook",
    "sys.unraisablehook", "sys._getframemodulename",
))

# The guest's side, compiled into namespaces of their own (never this module's globals).
_GUEST_SOURCE = r'''
def run(entered, gate, code, inputs, g, box, max_out, dumps):
    entered.release()
    gate.acquire()
    result = None
    err = None
    try:
        exec(code, g)
        fn = g.get("main")
        if not callable(fn):
            err = ("no_main", "the code does not define a function main(**inputs)", None, None)
        else:
            result = fn(**inputs)
    except SystemExit:
        err = ("forbidden", "sys.exit() is not allowed in a code node; return a dict from main instead", "SystemExit", None)
    except MemoryError as e:
        err = ("memory", "the code used more memory than allowed", "MemoryError", user_line(e.__traceback__))
    except RecursionError as e:
        err = ("stack", "maximum recursion depth exceeded", "RecursionError", user_line(e.__traceback__))
    except BaseException as e:
        try:
            text = str(e)
        except BaseException:
            text = "<unprintable>"
        err = ("runtime", "%s: %s" % (type(e).__name__, text[:4000]), type(e).__name__, user_line(e.__traceback__))
    try:
        box["reply"] = envelope(result, err, max_out, dumps)
    except MemoryError:
        box["reply"] = '{"ok":false,"kind":"memory","message":"the result is too large to serialise"}'

def envelope(result, err, max_out, dumps):
    if err is not None:
        kind, message, etype, line = err
        return dumps({"ok": False, "kind": kind, "message": message, "type": etype, "line": line})
    if not isinstance(result, dict):
        return dumps({"ok": False, "kind": "bad_result", "message": "main must return a dict, got %s" % type(result).__name__})
    try:
        data = dumps(result, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        return dumps({"ok": False, "kind": "bad_result", "message": "the result is not JSON-serialisable: %s" % (str(e)[:500],)})
    if len(data) > max_out:
        return dumps({"ok": False, "kind": "output", "message": "the result is %d characters, over the limit of %d" % (len(data), max_out)})
    return '{"ok":true,"result":' + data + '}'

def user_line(tb):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<code>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

class Sink:
    """Guest prints are counted and dropped, so a print loop cannot flood the host."""
    encoding = "utf-8"
    errors = "strict"
    def __init__(self, cap, audit):
        self._left = cap
        self._audit = audit
    def write(self, s):
        self._left -= len(s)
        if self._left < 0:
            self._audit("weft.output_overflow")
        return len(s)
    def flush(self):
        pass
    def isatty(self):
        return False
    def writable(self):
        return True

def guarded_import(name, globals=None, locals=None, fromlist=(), level=0, *, _imp, _deny, _mods, _audit, _user):
    # Not the boundary (loaded modules are reachable through sys.modules anyway): it makes the
    # common mistakes fail early with a clear message.
    if level == 0 and (globals is None or globals.get("__name__") == _user):
        root = name.split(".")[0]
        if name in _deny or root in _deny:
            _audit("weft.import_denied", name)
        if name not in _mods:
            _audit("weft.import_unavailable", name)
    return _imp(name, globals, locals, fromlist, level)

def no_source(*args, **kwargs):
    return []

def no_check(*args, **kwargs):
    return None
'''

def _vm_bytes():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except Exception:
        pass
    return 64 * 1024 * 1024

def _limit(which, soft, hard=None):
    try:
        resource.setrlimit(which, (soft, soft if hard is None else hard))
    except (ValueError, OSError):
        pass  # not every platform has every limit; the Node side still enforces time and output

def _drop_privileges():
    # Running as root makes RLIMIT_NPROC void and file permissions meaningless; become nobody.
    # Everything needed from disk is loaded by now, so unreadable library paths do not matter.
    if os.getuid() != 0:
        return
    try:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    except OSError:
        pass

def _defang_os():
    removed = {}
    for mod in (os, sys.modules.get("posix")):
        if mod is None:
            continue
        for name, value in list(mod.__dict__.items()):
            if type(value) is types.BuiltinFunctionType and name not in _KEEP_POSIX:
                removed[id(value)] = value
                del mod.__dict__[name]
    gone = lambda v: id(v) in removed and removed[id(v)] is v
    # Modules that did "from os import x" hold their own reference; os.supports_fd and its
    # siblings are sets of the functions themselves.
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if type(d) is dict:
            for name, value in list(d.items()):
                if gone(value):
                    del d[name]
                elif type(value) is set:
                    value.difference_update([v for v in value if gone(v)])
    _thread.__dict__.pop("interrupt_main", None)

def _scrub_sys():
    # Host paths of the interpreter; no import happens after the lockdown, so none is needed.
    for name in ("executable", "_base_executable", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix", "_stdlib_dir"):
        if hasattr(sys, name):
            setattr(sys, name, "")
    sys.orig_argv = []
    sys.argv = [""]
    sys.path = []
    sys.path_importer_cache.clear()
    for name in ("__main__", "resource", "gc", "_signal"):
        sys.modules.pop(name, None)
    # Where each module was loaded from is the interpreter's install path: not the guest's business.
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if type(d) is not dict:
            continue
        d.pop("__file__", None)
        d.pop("__cached__", None)
        d["__loader__"] = None
        spec = d.get("__spec__")
        if spec is not None:
            try:
                spec.origin = None
                spec.cached = None
                spec.loader = None
                spec.submodule_search_locations = None if spec.submodule_search_locations is None else []
            except AttributeError:
                pass
        if "__path__" in d:
            d["__path__"] = []

def _describe(event, args, *, _type=type, _str=str, _bytes=bytes, _int=int):
    a0 = args[0] if args else None
    shown = a0 if _type(a0) in (_str, _bytes, _int) else "…"
    if event in ("import", "weft.import_unavailable"):
        return "module %r is not available in the Python sandbox" % (shown,)
    if event == "weft.import_denied":
        return "import of module %r is not allowed in the Python sandbox" % (shown,)
    if event == "open":
        return "file access is not allowed in the sandbox (open %r)" % (shown,)
    if event.startswith("socket."):
        return "network access is not allowed in the sandbox (%s)" % (event,)
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty"):
        return "starting processes is not allowed in the sandbox (%s)" % (event,)
    if event.startswith("ctypes."):
        return "ctypes is not allowed in the sandbox (%s)" % (event,)
    if event in ("marshal.loads", "marshal.load", "code.__new__"):
        return "building code objects is not allowed in the sandbox (%s)" % (event,)
    return "operation %s is not allowed in the sandbox" % (event,)

def _boot():
    keep = (sys.stdin, sys.stdout, sys.stderr)  # their destructors would close fds 0-2
    os.environ.clear()  # the jail starts with an empty environment, but for PWD
    out = sys.stdout.buffer
    req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    nonce_line = ("\n" + req["nonce"] + "\n").encode("ascii")
    started = (req["nonce"] + ":started\n").encode("ascii")
    lim = req["limits"]
    max_out = int(lim["maxOutputBytes"])
    write, exit_, count, sleep = os.write, os._exit, _thread._count, time.sleep
    exact_str = str
    typ = type

    def reply(text):
        out.write(nonce_line + text.encode("utf-8", "surrogatepass") + b"\n")
        out.flush()
        exit_(0)

    def fail(kind, message, etype=None, line=None):
        reply(json.dumps({"ok": False, "kind": kind, "message": message, "type": etype, "line": line}))

    for m in _PRELOAD:
        try:
            __import__(m)
        except Exception:
            pass
    import datetime as dt
    dt.datetime.strptime("2000-01-01", "%Y-%m-%d")  # warms _strptime's locale cache before the lockdown

    code = req["code"]
    try:
        compiled = compile(code, "<code>", "exec")
    except SyntaxError as e:
        fail("syntax", "%s: %s" % (type(e).__name__, e.msg), type(e).__name__, e.lineno)
    except (ValueError, MemoryError) as e:
        fail("syntax", str(e), type(e).__name__)

    ns = {"__builtins__": builtins, "__name__": "__weft_guest__"}
    exec(compile(_GUEST_SOURCE, "<weft>", "exec"), ns)
    user_globals = {"__name__": "__weft_main__", "__builtins__": builtins}
    box = {"reply": None}
    gate = _thread.allocate_lock()
    gate.acquire()
    entered = _thread.allocate_lock()
    entered.acquire()
    # Started before RLIMIT_NPROC and the privilege drop, which would forbid a new thread; it
    # waits at the gate until the lockdown is complete. Once it has entered, _thread._count()
    # includes it, so the wait below cannot end before the guest has run.
    _thread.start_new_thread(ns["run"], (entered, gate, compiled, req["inputs"], user_globals, box, max_out, json.dumps))
    entered.acquire()

    cpu = resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = int(cpu.ru_utime + cpu.ru_stime) + max(1, -(-int(lim["timeoutMs"]) // 1000))
    _limit(resource.RLIMIT_CPU, cpu_s, cpu_s + 1)
    _limit(resource.RLIMIT_AS, _vm_bytes() + int(lim["memoryBytes"]))
    _limit(resource.RLIMIT_FSIZE, 0)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_NOFILE, 16)
    if hasattr(resource, "RLIMIT_NPROC"):
        _limit(resource.RLIMIT_NPROC, 0)  # no effect for root, hence the drop below
    _drop_privileges()

    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    linecache.updatecache = ns["no_source"]  # tracebacks show no library source: reading it is file access
    linecache.checkcache = ns["no_check"]
    sink = ns["Sink"](max_out, sys.audit)
    sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = sink
    threading = sys.modules.get("threading")
    if threading is not None:
        for t in list(threading._active.values()):
            if hasattr(t, "_stderr"):
                t._stderr = sink  # Thread objects keep the sys.stderr of their creation
    sys.stdin = sys.__stdin__ = io.StringIO("")
    guard = ns["guarded_import"]
    guard.__kwdefaults__ = {"_imp": builtins.__import__, "_deny": _DENY, "_mods": sys.modules, "_audit": sys.audit, "_user": "__weft_main__"}
    builtins.__import__ = guard
    _defang_os()
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    gc.disable()
    _scrub_sys()

    def die(kind, message, *, _w=write, _enc=_enc, _n=nonce_line, _x=exit_):
        _w(1, _n + ('{"ok":false,"kind":"' + kind + '","message":' + _enc(message[:1000]) + "}").encode("utf-8", "surrogatepass") + b"\n")
        _x(0)

    def hook(event, args, *, _ok=_ALLOWED, _type=type, _str=str, _fn=types.FunctionType, _die=die, _desc=_describe, _max=max_out):
        if _type(event) is not _str:
            _die("forbidden", "operation is not allowed in the sandbox")
        if event in _ok:
            if event != "object.__setattr__" or not args or _type(args[0]) is not _fn:
                return
        if event == "weft.output_overflow":
            _die("output", "the code printed more than %d characters" % (_max,))
        _die("forbidden", _desc(event, args))

    sys.addaudithook(hook)
    del hook, die
    out.write(started)
    out.flush()
    gate.release()
    # From here on only bound locals: the guest may have rebound any global or builtin name.
    while count() > 0:
        sleep(0.002)
    text = box.get("reply")
    if typ(text) is not exact_str:
        text = '{"ok":false,"kind":"crashed","message":"the code ended without a result"}'
    reply(text)

_boot()
`;
