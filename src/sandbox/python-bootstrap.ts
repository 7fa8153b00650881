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

# The module policy (python-modules.ts) arrives with the request; nothing can be imported after the
# lockdown, so the modules it allows are loaded before it: the common ones always, the others (the HTTP
# clients among them) when the code imports them. Lazily imported helpers (_strptime ...) are listed too.

# posix functions that stay: those CPython audits (the hook refuses them with a clear message) and
# pure ones. Every other builtin of os/posix is removed: stat, access, readlink, uname, getppid,
# getcwd, write, dup2 ... are not audited and would show host paths and ids or reach raw fds.
_KEEP_POSIX = frozenset("""open chdir fchdir chmod fchmod lchmod chown fchown lchown chflags lchflags
execv execve fork forkpty getxattr setxattr listxattr removexattr kill killpg link listdir lockf mkdir
posix_spawn posix_spawnp putenv unsetenv remove unlink rename replace rmdir scandir symlink system
truncate ftruncate utime urandom fspath strerror stat lstat fstat getuid geteuid getgid getegid WCOREDUMP WEXITSTATUS
WIFCONTINUED WIFEXITED WIFSIGNALED WIFSTOPPED WSTOPSIG WTERMSIG major minor makedev""".split())

# Events plain computation raises, and listing directories: Dify's sandbox allows getdents64, and the jail
# shows only the read-only system directories, its own /proc and /dev and a private /tmp, so a listing
# shows nothing of the host's. Everything else ends the run.
_ALLOWED = frozenset((
    "compile", "exec", "object.__getattr__", "object.__setattr__", "object.__delattr__",
    "sys._getframe", "builtins.id", "function.__new__", "time.sleep", "sys.excepthook",
    "sys.unraisablehook", "sys._getframemodulename", "os.listdir", "os.scandir", "os.walk",
    "pathlib.Path.glob", "pathlib.Path.rglob",
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

def guarded_import(name, globals=None, locals=None, fromlist=(), level=0, *, _imp, _deny, _allow, _pkgs, _views, _missing, _mods, _audit, _user):
    # Not the boundary (loaded modules are reachable through sys.modules anyway): it applies the module
    # policy of python-modules.ts, so a refused import fails at once with a message naming the module.
    if level == 0 and (globals is None or globals.get("__name__") == _user):
        view = _views.get(name)
        if view is not None:
            # "import os.path" binds os; "from os.path import join" takes from os.path
            return view if fromlist or "." not in name else _views.get(name.split(".")[0])
        parts = name.split(".")
        chain = [".".join(parts[:i + 1]) for i in range(len(parts))]
        for p in chain:
            if p in _deny:
                _audit("weft.import_denied", name)
        if name not in _allow and not any(p in _pkgs for p in chain):
            _audit("weft.import_unavailable", name)
        for p in chain:
            if p in _missing:
                _audit("weft.import_missing", name)
        if name not in _mods:
            _audit("weft.import_unloaded", name)
    return _imp(name, globals, locals, fromlist, level)

def relay(entered, listener, path, done, sk, select):
    # The guest's way to the egress proxy: HTTP(S)_PROXY points at this loopback listener, and each
    # connection is copied to the proxy's Unix socket. One thread (no more can start after the
    # lockdown) with a select loop and bounded buffers.
    entered.release()
    peer, out, reading, shut = {}, {}, {}, {}
    def drop(s):
        p = peer.pop(s, None)
        for x in (s, p):
            if x is not None:
                peer.pop(x, None); out.pop(x, None); reading.pop(x, None); shut.pop(x, None)
                try:
                    x.close()
                except OSError:
                    pass
    def settle(s):
        p = peer.get(s)
        if p is None:
            return
        if shut.get(s) and not out[s]:
            shut[s] = False
            try:
                s.shutdown(sk.SHUT_WR)
            except OSError:
                pass
        if not reading[s] and not reading[p] and not out[s] and not out[p]:
            drop(s)
    try:
        while True:
            rl = [listener] + [s for s in peer if reading[s] and len(out[peer[s]]) < 262144]
            wl = [s for s in peer if out[s]]
            r, w, _ = select.select(rl, wl, [])
            for s in w:
                if s not in peer:
                    continue
                try:
                    n = s.send(out[s])
                    del out[s][:n]
                except OSError:
                    drop(s)
                    continue
                settle(s)
            for s in r:
                if s is listener:
                    try:
                        c, _ = listener.accept()
                        u = sk.socket(sk.AF_UNIX, sk.SOCK_STREAM)
                    except OSError:
                        continue
                    try:
                        u.connect(path)
                    except OSError:
                        c.close()
                        u.close()
                        continue
                    for a, b in ((c, u), (u, c)):
                        a.setblocking(False)
                        peer[a], out[a], reading[a], shut[a] = b, bytearray(), True, False
                    continue
                if s not in peer:
                    continue
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    drop(s)
                    continue
                p = peer[s]
                if data:
                    out[p] += data
                else:
                    reading[s] = False
                    shut[p] = True
                settle(p)
    finally:
        done.release()

def refusals_raise(requests, httpx):
    # The proxy answers a refused plain-http request with 403 and X-Weft-Error; a refused CONNECT (https)
    # already raises ProxyError in both clients. Raise the same for http, so a refused request is an
    # error whatever the scheme, not a 403 page the code might take for data.
    def text(h):
        return "%s: %s" % (h.get("x-weft-error"), h.get("x-weft-error-message") or "refused by the egress proxy")
    if requests is not None:
        adapter = requests.adapters.HTTPAdapter
        build = adapter.build_response
        ProxyError = requests.exceptions.ProxyError
        def build_response(self, req, resp):
            r = build(self, req, resp)
            if r.headers.get("x-weft-error") and str(req.url).lower().startswith("http:"):
                raise ProxyError(text(r.headers), request=req, response=r)
            return r
        adapter.build_response = build_response
    if httpx is not None:
        transport = httpx.HTTPTransport
        handle = transport.handle_request
        HttpxProxyError = httpx.ProxyError
        def handle_request(self, request):
            resp = handle(self, request)
            if resp.headers.get("x-weft-error") and request.url.scheme == "http":
                message = text(resp.headers)
                resp.close()
                raise HttpxProxyError(message, request=request)
            return resp
        transport.handle_request = handle_request

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

def _defang_os(keep):
    removed = {}
    for mod in (os, sys.modules.get("posix")):
        if mod is None:
            continue
        for name, value in list(mod.__dict__.items()):
            if type(value) is types.BuiltinFunctionType and name not in keep:
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

def _describe(event, args, *, _type=type, _str=str, _bytes=bytes, _int=int, _tuple=tuple):
    a0 = args[0] if args else None
    shown = a0 if _type(a0) in (_str, _bytes, _int) else "\u2026"
    if event in ("import", "weft.import_unavailable"):
        return ("module %r is not available in the Python sandbox: code may import the standard library's pure "
                "modules, sys, os's path functions, pathlib, socket, requests and httpx (as in Dify's sandbox)" % (shown,))
    if event == "weft.import_denied":
        return ("import of module %r is not allowed in the Python sandbox: code has no files, processes or "
                "interpreter internals; HTTP goes through requests, httpx or urllib.request" % (shown,))
    if event == "weft.import_missing":
        return "module %r is not installed for the Python interpreter the sandbox runs" % (shown,)
    if event == "weft.import_unloaded":
        return "module %r must be imported with an import statement in the code (not __import__ or importlib)" % (shown,)
    if event == "weft.os_refused":
        return ("os.%s is not available in the sandbox: os offers its path functions, constants and stat, "
                "not processes, files or host facts" % (shown,))
    if event == "open":
        return "file access is not allowed in the sandbox (open %r)" % (shown,)
    if event.startswith("socket."):
        a1 = args[1] if len(args) > 1 else None
        where = (" to %r" % (a1,)) if event == "socket.connect" and _type(a1) in (_str, _tuple) else ""
        return ("direct network access is not allowed in the sandbox (%s%s): connections go only to Weft's "
                "egress proxy, which requests, httpx and urllib.request use by themselves" % (event, where))
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty"):
        return "starting processes is not allowed in the sandbox (%s)" % (event,)
    if event.startswith("ctypes."):
        return "ctypes is not allowed in the sandbox (%s)" % (event,)
    if event in ("marshal.loads", "marshal.load", "code.__new__"):
        return "building code objects is not allowed in the sandbox (%s)" % (event,)
    return "operation %s is not allowed in the sandbox" % (event,)

def _wanted(code):
    """Every absolute import of the code (the module names, dotted prefixes included)."""
    import ast
    names = set()
    try:
        tree = ast.parse(code)
    except Exception:
        return names
    for node in ast.walk(tree):
        found = []
        if type(node) is ast.Import:
            found = [a.name for a in node.names]
        elif type(node) is ast.ImportFrom and not node.level and node.module:
            found = [node.module] + [node.module + "." + a.name for a in node.names if a.name != "*"]
        for n in found:
            parts = n.split(".")
            names.update(".".join(parts[:i + 1]) for i in range(len(parts)))
    return names

def _load(policy, wanted, site):
    """Loads the policy's modules; returns those the code wants that are not installed, and whether an
    HTTP client was loaded."""
    for m in policy["preload"]:
        try:
            __import__(m)
        except Exception:
            pass
    import datetime as dt
    dt.datetime.strptime("2000-01-01", "%Y-%m-%d")  # warms _strptime's locale cache before the lockdown
    on_demand = set(policy["onDemand"])
    wanted = sorted(n for n in wanted if n in on_demand)
    if not wanted:
        return {}, False
    missing = {}
    sys.path.extend(p for p in site if p not in sys.path)
    for m in wanted:
        try:
            __import__(m)
        except Exception as e:
            missing[m] = type(e).__name__
    network = any(m in sys.modules for m in policy["network"])
    if network:
        for m in _NET_LAZY:
            try:
                __import__(m)
            except Exception:
                pass
        # Decoding a reply may look up any codec (charset detection tries many): load them all now.
        import encodings
        for d in encodings.__path__:
            for f in sorted(os.listdir(d)):
                if f.endswith(".py") and f != "__init__.py":
                    try:
                        __import__("encodings." + f[:-3])
                    except Exception:
                        pass
    return missing, network

def _open_relay(path):
    """The loopback listener HTTP(S)_PROXY names; created before the lockdown."""
    import socket
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    url = "http://127.0.0.1:%d" % port
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        os.environ[k] = url
    os.environ["HOME"] = "/tmp"  # requests looks for ~/.netrc; expanduser needs a HOME
    return listener, ("127.0.0.1", port)

def _net_rule(relay_addr, egress):
    """Which socket events the audit hook lets through. The jail has a network namespace of its own, where
    nothing outside is reachable: sockets may be made, bound and named as in Dify's sandbox (a name lookup
    finds no resolver there), and a connection may only go to the egress proxy (its loopback relay or its
    Unix socket), so every way out passes its SSRF guard."""
    families = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6: Linux's numbers, the only kernel the jail runs on
    local = frozenset(("socket.bind", "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
                       "socket.getnameinfo", "socket.gethostname"))
    host = relay_addr[0] if relay_addr else None
    port = relay_addr[1] if relay_addr else None
    def allowed(event, args, *, _t=type, _s=str, _i=int, _tu=tuple, _f=families, _l=local, _h=host, _p=port, _e=egress):
        if event == "socket.__new__":
            return len(args) > 1 and _t(args[1]) is _i and args[1] in _f
        if event in _l:
            return True
        if _h is None:
            return False
        if event == "http.client.send" or event == "http.client.connect" or event == "urllib.Request":
            return True  # the socket under it was let through by the rules below
        if event == "socket.connect":
            a = args[1] if len(args) > 1 else None
            if _t(a) is _tu and len(a) >= 2:
                return _t(a[0]) is _s and a[0] == _h and _t(a[1]) is _i and a[1] == _p
            return _t(a) is _s and a == _e
        return False
    return allowed

# Loaded with an HTTP client: modules requests and urllib import only when a request is made.
_NET_LAZY = "netrc http.cookiejar email.feedparser email.parser mimetypes ssl select".split()

_SYS_VIEW = """version version_info hexversion api_version maxsize maxunicode byteorder platform implementation
float_info int_info hash_info float_repr_style flags thread_info getsizeof getrecursionlimit setrecursionlimit
getdefaultencoding getfilesystemencoding intern exc_info exception exit getrefcount copyright
builtin_module_names stdlib_module_names""".split()

def _sys_view(sink):
    """What "import sys" gives the guest: the interpreter's facts and the sink as stdout/stderr."""
    view = types.ModuleType("sys")
    for name in _SYS_VIEW:
        if hasattr(sys, name):
            setattr(view, name, getattr(sys, name))
    view.stdout = view.stderr = view.__stdout__ = view.__stderr__ = sink
    view.stdin = view.__stdin__ = sys.stdin
    view.argv = [""]
    view.path = []
    return view

_OS_VIEW = """path sep altsep linesep pathsep curdir pardir extsep defpath devnull name getenv stat lstat fspath
walk listdir scandir urandom stat_result PathLike fsencode fsdecode SEEK_SET SEEK_CUR SEEK_END""".split()

def _os_view():
    """What "import os" gives the guest: path functions, constants, stat and directory listing (inside the
    jail they see only the read-only system directories and a private /tmp), an empty environ; opening a
    file is refused by the audit hook as file access."""
    view = types.ModuleType("os")
    for name in _OS_VIEW:
        if hasattr(os, name):
            setattr(view, name, getattr(os, name))
    view.environ = {}
    view.getenv = lambda key, default=None: default
    audit = sys.audit
    def refused(name, *, _audit=audit):
        # os.system, os.getcwd ...: refused as an operation (a clear, uncatchable message), not AttributeError
        _audit("weft.os_refused", name)
    view.__getattr__ = refused
    return view

def _boot():
    keep = (sys.stdin, sys.stdout, sys.stderr)  # their destructors would close fds 0-2
    os.environ.clear()  # the jail starts with an empty environment, but for PWD
    out = sys.stdout.buffer
    req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    nonce_line = ("\n" + req["nonce"] + "\n").encode("ascii")
    started = (req["nonce"] + ":started\n").encode("ascii")
    lim = req["limits"]
    setup = req["setup"]
    policy = setup["modules"]
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

    code = req["code"]
    try:
        compiled = compile(code, "<code>", "exec")
    except SyntaxError as e:
        fail("syntax", "%s: %s" % (type(e).__name__, e.msg), type(e).__name__, e.lineno)
    except (ValueError, MemoryError) as e:
        fail("syntax", str(e), type(e).__name__)
    missing, network = _load(policy, _wanted(code), setup["site"])

    ns = {"__builtins__": builtins, "__name__": "__weft_guest__"}
    exec(compile(_GUEST_SOURCE, "<weft>", "exec"), ns)
    user_globals = {"__name__": "__weft_main__", "__builtins__": builtins}
    box = {"reply": None}
    gate = _thread.allocate_lock()
    gate.acquire()
    entered = _thread.allocate_lock()
    entered.acquire()
    relay_up = _thread.allocate_lock()
    relay_addr = None
    if network:
        ns["refusals_raise"](sys.modules.get("requests"), sys.modules.get("httpx"))
        if setup["egress"]:
            import select, socket
            listener, relay_addr = _open_relay(setup["egress"])
            relay_up.acquire()  # released by the relay thread if it ever ends
            # _thread._count() counts a thread only once it runs: until the relay has entered, the wait
            # for the guest below would take the guest's thread for the relay and stop before its reply.
            relay_entered = _thread.allocate_lock()
            relay_entered.acquire()
            _thread.start_new_thread(ns["relay"], (relay_entered, listener, setup["egress"], relay_up, socket, select))
            relay_entered.acquire()
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
    _limit(resource.RLIMIT_NOFILE, 64 if network else 16)
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
    net_ok = _net_rule(relay_addr, setup["egress"])
    guard = ns["guarded_import"]
    guard.__kwdefaults__ = {
        "_imp": builtins.__import__, "_deny": frozenset(policy["deny"]),
        "_allow": frozenset(policy["preload"] + policy["onDemand"]), "_pkgs": frozenset(policy["packages"]),
        "_views": {"sys": _sys_view(sink), "os": _os_view(), "os.path": os.path}, "_missing": missing, "_mods": sys.modules, "_audit": sys.audit,
        "_user": "__weft_main__",
    }
    builtins.__import__ = guard
    _defang_os(_KEEP_POSIX)
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    gc.disable()
    _scrub_sys()

    def die(kind, message, module=None, *, _w=write, _enc=_enc, _n=nonce_line, _x=exit_, _s=str, _t=type):
        extra = (',"module":' + _enc(module[:200])) if _t(module) is _s else ""
        _w(1, _n + ('{"ok":false,"kind":"' + kind + '","message":' + _enc(message[:1000]) + extra + "}").encode("utf-8", "surrogatepass") + b"\n")
        _x(0)

    def hook(event, args, *, _ok=_ALLOWED, _type=type, _str=str, _fn=types.FunctionType, _die=die, _desc=_describe, _max=max_out, _net=net_ok):
        if _type(event) is not _str:
            _die("forbidden", "operation is not allowed in the sandbox")
        if event in _ok:
            if event != "object.__setattr__" or not args or _type(args[0]) is not _fn:
                return
        if event == "weft.output_overflow":
            _die("output", "the code printed more than %d characters" % (_max,))
        if (event[:7] == "socket." or event[:12] == "http.client." or event == "urllib.Request") and _net(event, args):
            return
        if event[:12] == "weft.import_" and args and _type(args[0]) is _str:
            _die("forbidden", _desc(event, args), args[0])
        _die("forbidden", _desc(event, args))

    sys.addaudithook(hook)
    del hook, die
    out.write(started)
    out.flush()
    gate.release()
    # From here on only bound locals: the guest may have rebound any global or builtin name. The relay
    # thread, while it runs, is counted by _thread._count() but is not the guest.
    locked = relay_up.locked
    while count() > (1 if locked() else 0):
        sleep(0.002)
    text = box.get("reply")
    if typ(text) is not exact_str:
        text = '{"ok":false,"kind":"crashed","message":"the code ended without a result"}'
    reply(text)

_boot()
`;
