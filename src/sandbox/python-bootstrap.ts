/**
 * The program `python3 -I -S -B -c <this>` runs before any user code. It reads one JSON request
 * from stdin, preloads the allowed standard modules, lowers resource limits, installs an audit hook
 * that fails closed (only events on an allow list pass; everything else — files, sockets, processes,
 * ctypes, new imports, bytecode loading — raises), and only then compiles and calls the user's main.
 *
 * The audit hook is the boundary: CPython raises audit events from C for every file, socket and
 * process operation, however the guest reached the function (`__subclasses__` tricks included),
 * and hooks cannot be removed once added. The import guard and the module allow list only make
 * the common mistakes fail early with a clear message.
 *
 * The reply is written once, to the real stdout, after a per-run nonce line; the guest's own
 * prints go to a capped buffer that is discarded.
 */
export const PYTHON_BOOTSTRAP = String.raw`
import sys, json, resource, builtins, os

_stdin = sys.stdin.buffer
_stdout = sys.stdout.buffer
_req = json.loads(_stdin.read().decode("utf-8"))
_nonce = _req["nonce"]
_lim = _req["limits"]
_max_out = int(_lim["maxOutputBytes"])

def _reply(obj):
    data = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    _stdout.write(("\n" + _nonce + "\n" + data + "\n").encode("utf-8", "surrogatepass"))
    _stdout.flush()
    os._exit(0)

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
for _m in _PRELOAD:
    try:
        __import__(_m)
    except Exception:
        pass
import datetime as _dt
_dt.datetime.strptime("2000-01-01", "%Y-%m-%d")  # warms _strptime's locale cache before the lockdown

# Modules user code may not import even though they are loaded (the standard library needs them).
_DENY = frozenset("""os posix nt sys subprocess socket _socket ssl ctypes _ctypes importlib _imp
_frozen_importlib _frozen_importlib_external zipimport marshal pickle _pickle shelve _io builtins
gc inspect code codeop runpy signal _signal threading _thread multiprocessing concurrent asyncio
resource pty fcntl mmap select selectors shutil pathlib tempfile glob fnmatch posixpath ntpath genericpath
urllib.request http ftplib smtplib telnetlib socketserver xmlrpc webbrowser platform sysconfig site
_posixsubprocess faulthandler tracemalloc sqlite3 dbm zipfile tarfile lzma bz2 gzip""".split())

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

_cpu = max(1, -(-int(_lim["timeoutMs"]) // 1000))
_limit(resource.RLIMIT_CPU, _cpu, _cpu + 1)
_limit(resource.RLIMIT_AS, _vm_bytes() + int(_lim["memoryBytes"]))
_limit(resource.RLIMIT_FSIZE, 0)
_limit(resource.RLIMIT_CORE, 0)
_limit(resource.RLIMIT_NOFILE, 16)
if hasattr(resource, "RLIMIT_NPROC"):
    _limit(resource.RLIMIT_NPROC, 0)  # no effect for root; the audit hook still refuses fork/exec

# Filesystem calls CPython does not audit. Dropping them leaves no reference the guest can reach
# without gc (which is audited).
for _name in ("mkfifo", "mknod", "memfd_create", "chroot"):
    for _mod in (os, sys.modules.get("posix")):
        if _mod is not None:
            _mod.__dict__.pop(_name, None)

def _drop_privileges():
    # Running as root makes RLIMIT_NPROC void and file permissions meaningless; become nobody.
    # Everything needed from disk is loaded by now, so unreadable library paths do not matter.
    if not hasattr(os, "getuid") or os.getuid() != 0:
        return
    try:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    except OSError:
        pass
    for _n in ("setuid", "setgid", "setgroups", "setreuid", "setregid", "setresuid", "setresgid"):
        for _mod in (os, sys.modules.get("posix")):
            if _mod is not None:
                _mod.__dict__.pop(_n, None)

class _Violation(BaseException):
    """Not an Exception subclass, so a bare 'except Exception' in user code does not swallow it."""

class _OutputTooLarge(BaseException):
    pass

_state = {"violation": None, "printed": 0, "overflow": False}

def _violation(message):
    if _state["violation"] is None:
        _state["violation"] = message
    return _Violation(message)

# Events plain computation raises. Everything else is refused.
_ALLOWED = frozenset((
    "compile", "exec", "object.__getattr__", "object.__setattr__", "object.__delattr__",
    "sys._getframe", "builtins.id", "function.__new__", "time.sleep", "sys.excepthook",
    "sys.unraisablehook", "sys._getframemodulename",
))

def _describe(event, args):
    a0 = args[0] if args else None
    if event == "import":
        return "module '%s' is not available in the Python sandbox" % (a0,)
    if event == "open":
        return "file access is not allowed in the sandbox (open %r)" % (a0,)
    if event.startswith("socket."):
        return "network access is not allowed in the sandbox (%s)" % event
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty"):
        return "starting processes is not allowed in the sandbox (%s)" % event
    if event.startswith("ctypes."):
        return "ctypes is not allowed in the sandbox (%s)" % event
    if event in ("marshal.loads", "marshal.load", "code.__new__"):
        return "building code objects is not allowed in the sandbox (%s)" % event
    return "operation %s is not allowed in the sandbox" % event

# Everything the hook uses is bound as a default argument: user code can reach this module's
# globals through frames, but replacing a function's defaults or code raises an audit event that
# this very hook refuses.
def _hook(event, args, _allowed=_ALLOWED, _type=type, _fn=type(_describe), _desc=_describe,
          _st=_state, _V=_Violation, _Base=BaseException):
    if event in _allowed:
        if not (event == "object.__setattr__" and args and _type(args[0]) is _fn):
            return
    try:
        message = _desc(event, args)
    except _Base:
        message = "operation %s is not allowed in the sandbox" % (event,)
    if _st.get("violation") is None:
        _st["violation"] = message
    raise _V(message)

_orig_import = builtins.__import__
_USER = "__weft_main__"

def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and (globals is None or globals.get("__name__") == _USER):
        root = name.split(".")[0]
        if name in _DENY or root in _DENY:
            raise _violation("import of module '%s' is not allowed in the Python sandbox" % name)
        if name not in sys.modules:
            raise _violation("module '%s' is not available in the Python sandbox" % name)
    return _orig_import(name, globals, locals, fromlist, level)

class _CappedOut:
    """Guest prints are counted and dropped, so a print loop cannot flood the host."""
    encoding = "utf-8"
    errors = "strict"
    def write(self, s):
        _state["printed"] += len(s)
        if _state["printed"] > _max_out:
            _state["overflow"] = True
            raise _OutputTooLarge()
        return len(s)
    def flush(self):
        pass
    def isatty(self):
        return False
    def writable(self):
        return True

def _user_line(tb):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<code>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

def _fail(kind, message, etype=None, line=None):
    _reply({"ok": False, "kind": kind, "message": message, "type": etype, "line": line})

def _main():
    code = _req["code"]
    inputs = _req["inputs"]
    try:
        compiled = compile(code, "<code>", "exec")
    except SyntaxError as e:
        _fail("syntax", "%s: %s" % (type(e).__name__, e.msg), type(e).__name__, e.lineno)
    except (ValueError, MemoryError) as e:
        _fail("syntax", str(e), type(e).__name__)
    user_globals = {"__name__": _USER, "__builtins__": builtins}
    sys.stdout = _CappedOut()
    sys.stderr = _CappedOut()
    builtins.__import__ = _guarded_import
    _drop_privileges()
    sys.addaudithook(_hook)
    result = None
    err = None
    try:
        exec(compiled, user_globals)
        fn = user_globals.get("main")
        if not callable(fn):
            err = ("no_main", "the code does not define a function main(**inputs)", None, None)
        else:
            result = fn(**inputs)
    except _Violation:
        pass
    except _OutputTooLarge:
        pass
    except SystemExit:
        err = ("forbidden", "sys.exit() is not allowed in a code node; return a dict from main instead", "SystemExit", None)
    except MemoryError as e:
        err = ("memory", "the code used more memory than allowed", "MemoryError", _user_line(e.__traceback__))
    except RecursionError as e:
        err = ("stack", "maximum recursion depth exceeded", "RecursionError", _user_line(e.__traceback__))
    except BaseException as e:
        try:
            text = str(e)
        except BaseException:
            text = "<unprintable>"
        err = ("runtime", "%s: %s" % (type(e).__name__, text[:4000]), type(e).__name__, _user_line(e.__traceback__))
    # A violation the user code caught and ignored still fails the run.
    if _state["violation"] is not None:
        _fail("forbidden", _state["violation"])
    if _state["overflow"]:
        _fail("output", "the code printed more than %d characters" % _max_out)
    if err is not None:
        _fail(*err)
    if not isinstance(result, dict):
        _fail("bad_result", "main must return a dict, got %s" % type(result).__name__)
    try:
        data = json.dumps(result, ensure_ascii=False, allow_nan=False)
    except MemoryError:
        _fail("memory", "the result is too large to serialise")
    except (TypeError, ValueError, RecursionError) as e:
        _fail("bad_result", "the result is not JSON-serialisable: %s" % (str(e)[:500],))
    if len(data) > _max_out:
        _fail("output", "the result is %d characters, over the limit of %d" % (len(data), _max_out))
    _stdout.write(("\n" + _nonce + "\n").encode("ascii"))
    _stdout.write(b'{"ok":true,"result":')
    _stdout.write(data.encode("utf-8", "surrogatepass"))
    _stdout.write(b"}\n")
    _stdout.flush()
    os._exit(0)

_main()
`;
