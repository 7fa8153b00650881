import { execFile } from "node:child_process";
import { SandboxError } from "./errors.js";

/**
 * The seccomp filter every jailed guest runs under, compiled to classic BPF by libseccomp (Debian's
 * `python3-seccomp`, the library's own bindings) so that syscall numbers and architecture checks come from
 * the library rather than from a table kept here.
 *
 * The policy is a deny-list in the manner of Flatpak's (which also runs bubblewrap): the calls a Python
 * guest never needs and that widen the kernel's attack surface or reach outside the namespaces fail with
 * EPERM; everything else is allowed, so a new interpreter version keeps working. Other architectures' ABIs
 * (i386 through `int 0x80`, x32) are killed by libseccomp's default bad-arch action.
 */
const GENERATOR = `
import errno, sys, seccomp
from seccomp import Arg, ERRNO, MASKED_EQ, EQ, GT

f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)

def deny(name, *args, err=errno.EPERM):
    try:
        f.add_rule(ERRNO(err), name, *args)
    except (RuntimeError, ValueError, OSError):
        pass  # not a syscall of this architecture

for name in """ptrace process_vm_readv process_vm_writev kcmp pidfd_open pidfd_send_signal pidfd_getfd
mount umount umount2 pivot_root chroot open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr
unshare setns bpf perf_event_open userfaultfd io_uring_setup io_uring_enter io_uring_register
kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff syslog acct
quotactl quotactl_fd add_key keyctl request_key lookup_dcookie name_to_handle_at open_by_handle_at
uselib modify_ldt move_pages mbind migrate_pages set_mempolicy get_mempolicy vhangup nfsservctl
settimeofday clock_settime clock_adjtime adjtimex mknod mknodat fanotify_init
iopl ioperm personality landlock_create_ruleset""".split():
    deny(name)

# New namespaces from inside (a user namespace is how most container escapes start).
for flag in (0x10000000, 0x20000000, 0x40000000, 0x00020000, 0x04000000, 0x08000000, 0x02000000):
    deny("clone", Arg(0, MASKED_EQ, flag, flag))
# clone3 passes its flags in memory, where a filter cannot look: ENOSYS makes glibc fall back to clone.
deny("clone3", err=errno.ENOSYS)

# Sockets: local, IPv4 and IPv6 only (no netlink, packet, vsock, bluetooth ...).
deny("socket", Arg(0, GT, 10), err=errno.EAFNOSUPPORT)
for family in (0, 3, 4, 5, 6, 7, 8, 9):
    deny("socket", Arg(0, EQ, family), err=errno.EAFNOSUPPORT)

# Typing into the controlling terminal.
for request in (0x5412, 0x541C):  # TIOCSTI, TIOCLINUX
    deny("ioctl", Arg(1, MASKED_EQ, 0xFFFFFFFF, request))

f.export_bpf(sys.stdout)
`;

/** The interpreter that has libseccomp's bindings (Debian installs them for the system Python). */
const GENERATOR_PYTHON = process.env.WEFT_SECCOMP_PYTHON ?? "/usr/bin/python3";

let compiled: Promise<Buffer> | undefined;

/** The filter's BPF program, built once per process. */
export function seccompProgram(): Promise<Buffer> {
  compiled ??= new Promise<Buffer>((resolve, reject) => {
    execFile(
      GENERATOR_PYTHON,
      ["-I", "-c", GENERATOR],
      { encoding: "buffer", timeout: 20_000, maxBuffer: 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err || stdout.length === 0 || stdout.length % 8 !== 0) {
          compiled = undefined;
          const why = err ? stderr.toString("utf8").trim().split("\n").pop() || err.message : "no program";
          reject(
            new SandboxError(
              "sandbox.unavailable",
              `Python code nodes run under a seccomp filter built with libseccomp, which could not be loaded (${why}); install it with "apt-get install python3-seccomp" (or point WEFT_SECCOMP_PYTHON at a Python that has the seccomp module)`,
              { language: "python3", missing: "python3-seccomp" },
            ),
          );
          return;
        }
        resolve(stdout);
      },
    );
  });
  return compiled;
}
