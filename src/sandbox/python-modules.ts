/**
 * Which modules Python code nodes may import: one policy, read by the sandbox's bootstrap (which loads the
 * modules before its lockdown and refuses every other import at run time) and by the code node's static
 * rules (which warn at analysis time about the imports the sandbox will refuse).
 *
 * Dify's sandbox (langgenius/dify-sandbox) has no module list: any installed module imports, and what it
 * then does is limited by seccomp (its python_syscall allow-list: file reads and directory listing, and with
 * network enabled socket, connect, bind, listen, accept, send/recv), with the network reached through
 * HTTP(S)_PROXY. Its Python carries `requests` and `httpx` besides the standard library. Weft allows the same
 * working set — the pure standard library, `sys` and `os` (views; listing directories included), `pathlib`,
 * `socket` (connections only to the egress proxy), and requests, httpx and urllib through the egress proxy —
 * inside the OS jail, which shows only the read-only system directories, a private /tmp and no network but
 * the proxy; it refuses at import what could only fail later (files, processes, interpreter internals).
 */

/** Loaded for every call: cheap pure modules most code uses. */
const PRELOAD = `json re math cmath datetime time calendar collections collections.abc itertools functools
operator random secrets hashlib hmac base64 binascii string textwrap unicodedata decimal fractions
numbers statistics copy heapq bisect array struct uuid typing dataclasses enum abc contextlib pprint
difflib html html.entities html.parser urllib urllib.parse zlib csv traceback types keyword _strptime graphlib
io logging
encodings.latin_1 encodings.ascii encodings.utf_16 encodings.utf_32 encodings.utf_16_le encodings.utf_16_be
encodings.utf_8_sig encodings.utf_7 encodings.idna encodings.punycode encodings.cp1252 encodings.cp437
encodings.hex_codec encodings.base64_codec encodings.unicode_escape encodings.raw_unicode_escape
encodings.gbk encodings.gb2312 encodings.gb18030 encodings.big5 encodings.shift_jis encodings.euc_jp
encodings.euc_kr encodings.iso8859_1 encodings.iso8859_15`.split(/\s+/);

/**
 * Loaded only when the code imports them (by an import statement anywhere in it): heavier modules, and the
 * HTTP clients. The third-party ones load from the interpreter's own site directories when installed.
 */
const ON_DEMAND = `requests httpx urllib3 certifi idna charset_normalizer chardet h11 httpcore sniffio anyio
http http.client http.cookies http.cookiejar urllib.request urllib.error urllib.response
email email.utils email.message email.parser email.header email.mime email.mime.text email.mime.multipart
xml xml.etree xml.etree.ElementTree xml.dom xml.dom.minidom xml.sax xml.sax.saxutils
ipaddress colorsys shlex reprlib weakref queue stringprep codecs quopri
pathlib socket`.split(/\s+/);

/** Packages whose every submodule is allowed once the package is (requests.exceptions, email.mime.base …). */
const PACKAGES =
  "requests httpx urllib3 certifi idna charset_normalizer chardet h11 httpcore sniffio anyio email encodings collections xml pathlib".split(
    " ",
  );

/** Imports that bring up the jail's egress relay and HTTP(S)_PROXY. */
const NETWORK = "requests httpx urllib3 httpcore http.client urllib.request".split(" ");

/** Refused with "not allowed": files, processes, the socket internals, interpreter internals. */
const DENY = `posix nt subprocess _socket ssl ctypes _ctypes importlib _imp
_frozen_importlib _frozen_importlib_external zipimport marshal pickle _pickle shelve _io builtins
gc inspect code codeop runpy signal _signal threading _thread multiprocessing concurrent asyncio
resource pty fcntl mmap select selectors shutil tempfile glob fnmatch posixpath ntpath genericpath
http.server xmlrpc ftplib smtplib telnetlib socketserver webbrowser platform sysconfig site
_posixsubprocess faulthandler tracemalloc sqlite3 dbm zipfile tarfile lzma bz2 gzip xml.etree.cElementTree`.split(
  /\s+/,
);

/**
 * Modules the guest gets a view of instead of the real one: sys's facts and stdout; os's path functions,
 * constants, an empty environ and stat (the jail holds only the read-only system directories), without
 * its process, file-descriptor and host-identity functions.
 */
const VIEWS = ["sys", "os", "os.path"];

export interface PythonModulePolicy {
  preload: string[];
  onDemand: string[];
  packages: string[];
  network: string[];
  deny: string[];
  views: string[];
}

/** The policy as the bootstrap receives it. */
export const PYTHON_MODULES: PythonModulePolicy = Object.freeze({
  preload: PRELOAD,
  onDemand: ON_DEMAND,
  packages: PACKAGES,
  network: NETWORK,
  deny: DENY,
  views: VIEWS,
});

export type ModuleVerdict = { allowed: true } | { allowed: false; reason: "denied" | "unavailable" };

const allowedNames = new Set([...PRELOAD, ...ON_DEMAND, ...VIEWS]);
const denied = new Set(DENY);
const packages = new Set(PACKAGES);

/** Prefixes of a dotted name, shortest first: a.b.c → a, a.b, a.b.c. */
function prefixes(name: string): string[] {
  const parts = name.split(".");
  return parts.map((_, i) => parts.slice(0, i + 1).join("."));
}

/** What the sandbox does with `import name` (the bootstrap applies the same rule in Python). */
export function pythonModuleVerdict(name: string): ModuleVerdict {
  const all = prefixes(name);
  if (all.some((p) => denied.has(p))) return { allowed: false, reason: "denied" };
  if (allowedNames.has(name) || all.some((p) => packages.has(p))) return { allowed: true };
  return { allowed: false, reason: "unavailable" };
}

export interface PythonImport {
  module: string;
  /** 1-based line of the import statement. */
  line: number;
}

const IMPORT_LINE = /^[ \t]*(?:import[ \t]+([^#\n]+)|from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b)/;

/**
 * Absolute imports of Python source, read line by line (statements inside functions included; relative
 * imports, which a code node cannot have, are skipped). A statement split over lines with a backslash or
 * parentheses names its modules on the first line, which is the one read.
 */
export function pythonImports(code: string): PythonImport[] {
  const found: PythonImport[] = [];
  for (const [i, text] of code.split("\n").entries()) {
    const m = IMPORT_LINE.exec(text);
    if (!m) continue;
    const names = m[2] ? [m[2]] : (m[1] ?? "").split(/[;]/)[0]!.split(",");
    for (const raw of names) {
      const module =
        raw
          .trim()
          .replace(/[()\\]/g, "")
          .split(/\s+as\s+/)[0]
          ?.trim() ?? "";
      if (/^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*$/.test(module)) found.push({ module, line: i + 1 });
    }
  }
  return found;
}
