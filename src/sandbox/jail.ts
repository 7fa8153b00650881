import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { accessSync, constants, lstatSync, readlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Writable } from "node:stream";
import { SandboxError } from "./errors.js";
import { seccompProgram } from "./seccomp.js";

/**
 * The operating-system boundary around untrusted code: every guest runs under bubblewrap in new user,
 * PID, mount, network, IPC, UTS and cgroup namespaces, with all capabilities dropped, no further user
 * namespaces, the seccomp filter of seccomp.ts, an empty environment, and a root filesystem that holds
 * only the read-only system directories (the interpreter and its libraries), a fresh /proc of its own
 * PID namespace, a minimal /dev and a small private tmpfs. Its network namespace has only loopback: the
 * one way out is the egress proxy's socket, bound in at {@link EGRESS_SOCKET}, which applies the HTTP
 * node's address policy (egress.ts).
 *
 * When Weft runs as root, each guest also gets a host uid of its own (the jail is started as that uid,
 * so bubblewrap itself runs unprivileged): guests can neither signal nor read one another's processes
 * even before the PID namespace is counted, and RLIMIT_NPROC counts only their own processes.
 */

/** Where the egress proxy's socket appears inside the jail. */
export const EGRESS_SOCKET = "/run/weft/egress.sock";

export interface JailSpec {
  /** The command to run inside, its first element an absolute path visible in the jail. */
  argv: string[];
  /** Host paths (outside the system directories) to show read-only at the same place. */
  readOnly?: string[];
  /** Host path of the egress proxy's socket; without it the jail has no way out at all. */
  egressSocket?: string;
  /** Size of the private /tmp. */
  tmpBytes?: number;
}

/** Top-level system directories: shown read-only, or as the same symlink on merged-/usr systems. */
const SYSTEM_DIRS = ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"];
const DEFAULT_TMP_BYTES = 16 * 1024 * 1024;
/** Inside the jail every guest is `nobody`; outside it is the uid chosen by {@link hostIds}. */
const GUEST_ID = "65534";
/** Host uids for guests when Weft runs as root: far above any real account. */
const HOST_ID_BASE = 1_000_000;
const HOST_ID_SPAN = 16_000_000;

export function bwrapArgs(spec: JailSpec): string[] {
  const args = [
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--clearenv",
    "--hostname",
    "sandbox",
    "--uid",
    GUEST_ID,
    "--gid",
    GUEST_ID,
  ];
  for (const dir of SYSTEM_DIRS) args.push(...systemDir(dir));
  args.push("--proc", "/proc", "--dev", "/dev");
  args.push("--size", String(spec.tmpBytes ?? DEFAULT_TMP_BYTES), "--tmpfs", "/tmp", "--chdir", "/tmp");
  for (const path of spec.readOnly ?? []) args.push("--ro-bind", path, path);
  if (spec.egressSocket) args.push("--dir", "/run/weft", "--ro-bind", spec.egressSocket, EGRESS_SOCKET);
  // The root is bubblewrap's own tmpfs, with no size limit: nothing may be written there, only in /tmp.
  args.push("--remount-ro", "/", "--seccomp", "3", "--");
  return [...args, ...spec.argv];
}

function systemDir(name: string): string[] {
  const path = `/${name}`;
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return ["--symlink", readlinkSync(path), path];
    if (st.isDirectory()) return ["--ro-bind", path, path];
  } catch {
    // absent on this system
  }
  return [];
}

let bwrapPath: string | undefined;

/** bubblewrap's absolute path ($WEFT_BWRAP, else the PATH), or a typed error saying how to install it. */
export function findBwrap(): string {
  // Only the PATH lookup is remembered: $WEFT_BWRAP is read on every start, so setting it takes effect.
  const wanted = process.env.WEFT_BWRAP;
  if (!wanted && bwrapPath) return bwrapPath;
  const candidates = wanted
    ? [wanted]
    : (process.env.PATH ?? "/usr/bin:/bin").split(delimiter).map((dir) => join(dir, "bwrap"));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (!wanted) bwrapPath = c;
      return c;
    } catch {
      // try the next one
    }
  }
  throw new SandboxError(
    "sandbox.unavailable",
    `code nodes run inside the bubblewrap OS sandbox, which was not found (${wanted ? `WEFT_BWRAP=${wanted}` : "bwrap on the PATH"}); install it with "apt-get install bubblewrap"`,
    { language: "python3", missing: "bubblewrap" },
  );
}

/** The host uid/gid a new guest is started as: a fresh one when Weft is root, else Weft's own. */
export function hostIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = HOST_ID_BASE + Math.floor(Math.random() * HOST_ID_SPAN);
  return { uid: id, gid: id };
}

/**
 * Start `spec.argv` in a new jail. The child is its own process group, so killing the group ends
 * bubblewrap, whose death ends everything in the jail (`--die-with-parent`, and the PID namespace's
 * init going away).
 */
export async function spawnJailed(spec: JailSpec): Promise<ChildProcessWithoutNullStreams> {
  const bwrap = findBwrap();
  const program = await seccompProgram();
  const ids = hostIds();
  const child = spawn(bwrap, bwrapArgs(spec), {
    env: {},
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    detached: true,
    ...(ids ?? {}),
  });
  const filterPipe = child.stdio[3] as Writable;
  filterPipe.on("error", () => undefined); // bwrap failed before reading it: its stderr says why
  filterPipe.end(program);
  return child as unknown as ChildProcessWithoutNullStreams;
}

/**
 * bubblewrap's own setup failures ("bwrap: …" on stderr, exit 1 before the guest starts) as a typed
 * error naming what the host lacks.
 */
export function jailSetupError(stderr: string, language: "python3" | "javascript"): SandboxError | undefined {
  const line = stderr
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.startsWith("bwrap:"));
  if (!line) return undefined;
  const reason = line.slice("bwrap:".length).trim();
  const userns = /namespace|uid map|setting up|Operation not permitted|No permissions/i.test(reason);
  const fix = userns
    ? "this host does not let an unprivileged process create user namespaces; allow them (sysctl user.max_user_namespaces=15000, kernel.unprivileged_userns_clone=1 where that exists, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
    : "check that the interpreter and the paths the sandbox shows are readable by an unprivileged user";
  return new SandboxError("sandbox.unavailable", `the OS sandbox could not start (${reason}): ${fix}`, {
    language,
    reason,
  });
}
