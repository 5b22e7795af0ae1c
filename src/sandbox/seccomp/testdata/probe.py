"""Attempts one system call the seccomp filter refuses, and prints what happened in one word: "ok", or the
errno's name (EPERM, ENOSYS, ...). Used by live.test.ts inside real bwrap, with and without the filter.
Usage: python3 probe.py ATTEMPT [ARG]. Nothing here connects anywhere but to the path it is given.
`python3 probe.py with-session-key COMMAND...` runs COMMAND in a fresh session keyring holding a canary key
(what a login session's keyring holds), which `session-key` then tries to read."""

import ctypes
import errno
import os
import socket
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# x86-64 and aarch64 numbers (src/sandbox/seccomp/abi/*.json).
X86 = os.uname().machine == "x86_64"
NR = {
    "keyctl": 250 if X86 else 219,
    "add_key": 248 if X86 else 217,
    "request_key": 249 if X86 else 218,
    "ptrace": 101 if X86 else 117,
    "process_vm_readv": 310 if X86 else 270,
    "perf_event_open": 298 if X86 else 241,
    "userfaultfd": 323 if X86 else 282,
    "unshare": 272 if X86 else 97,
    "io_uring_setup": 425,
    "open_tree": 428,
    "mount": 165 if X86 else 40,
    "fsopen": 430,
    "clone3": 435,
}


def sys_call(name, *args):
    """The raw system call; its result, or OSError with errno."""
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def unix_connect(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall(b"PWNED from python\n")


def pair_connect(path):
    """A socket pair whose peer has gone, pointed at a host socket: the kernel keeps it tied (EISCONN)."""
    a, b = socket.socketpair()
    b.close()
    a.connect(path)


def stream_pair():
    a, b = socket.socketpair()
    a.sendall(b"x")
    assert b.recv(1) == b"x"


def process_vm_readv():
    buf = ctypes.create_string_buffer(b"secret", 8)
    out = ctypes.create_string_buffer(8)

    class Iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    local = Iovec(ctypes.addressof(out), 8)
    remote = Iovec(ctypes.addressof(buf), 8)
    sys_call("process_vm_readv", os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)


def perf_event_open():
    attr = bytearray(128)  # struct perf_event_attr: type SOFTWARE, size, config CPU_CLOCK, disabled|exclude_kernel|exclude_hv
    attr[0:4] = (1).to_bytes(4, "little")
    attr[4:8] = (128).to_bytes(4, "little")
    attr[40:48] = (1 | 1 << 5 | 1 << 6).to_bytes(8, "little")
    buf = ctypes.create_string_buffer(bytes(attr), 128)
    os.close(sys_call("perf_event_open", buf, 0, -1, -1, 0))


SESSION_KEY = b"toolgate-canary-key"
KEY_SPEC_SESSION_KEYRING = -3


def read_session_key():
    """KEYCTL_SEARCH (10) the inherited session keyring for the canary, then KEYCTL_READ (11) it."""
    key = sys_call("keyctl", 10, KEY_SPEC_SESSION_KEYRING, b"user", SESSION_KEY, 0)
    buf = ctypes.create_string_buffer(64)
    sys_call("keyctl", 11, key, buf, 64)


def with_session_key(argv):
    """KEYCTL_JOIN_SESSION_KEYRING (1) a new anonymous keyring, add the canary to it, exec argv."""
    sys_call("keyctl", 1, None)
    sys_call("add_key", b"user", SESSION_KEY, b"canary", 6, KEY_SPEC_SESSION_KEYRING)
    os.execvp(argv[0], argv)


def x32_getpid():
    """getpid through the x32 ABI (x86-64's numbers with bit 30 set)."""
    ctypes.set_errno(0)
    if libc.syscall(ctypes.c_long(0x40000000 | 39)) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def tty_request(name):
    """Becomes a session leader with a fresh pseudo-terminal as its controlling terminal, then asks TIOCSTI or
    TIOCLINUX of it (in a child: setsid needs a process that leads no group)."""
    import fcntl
    import termios

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            os.setsid()
            master, slave = os.openpty()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            request = termios.TIOCSTI if name == "tiocsti" else 0x541C
            fcntl.ioctl(slave, request, b"\x02" if name == "tioclinux" else b"x")
            word = "ok"
        except OSError as e:
            word = errno.errorcode.get(e.errno, str(e.errno))
        os.write(write_end, word.encode())
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    print(os.read(read_end, 64).decode())
    sys.exit(0)


ATTEMPTS = {
    "unix-socket": lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close(),
    "unix-connect": lambda: unix_connect(sys.argv[2]),
    "dgram-pair": lambda: [s.close() for s in socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)],
    "stream-pair": stream_pair,
    "pair-connect": lambda: pair_connect(sys.argv[2]),
    "vsock": lambda: socket.socket(40, socket.SOCK_STREAM).close(),  # AF_VSOCK; created, never connected
    "inet-socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(),
    "keyctl": lambda: sys_call("keyctl", 0, -4, 0),  # KEYCTL_GET_KEYRING_ID of the user keyring
    "session-key": read_session_key,
    "add-key": lambda: sys_call("add_key", b"user", b"toolgate-probe", b"x", 1, -2),  # into the process keyring
    "request-key": lambda: sys_call("request_key", b"user", b"toolgate-no-such-key", None, 0),
    "ptrace": lambda: sys_call("ptrace", 0, 0, 0, 0),  # PTRACE_TRACEME
    "process-vm-readv": process_vm_readv,
    "perf-event-open": perf_event_open,
    "io-uring": lambda: os.close(sys_call("io_uring_setup", 8, ctypes.create_string_buffer(120))),
    "userfaultfd": lambda: os.close(sys_call("userfaultfd", 0o2000000 | 1)),  # O_CLOEXEC | UFFD_USER_MODE_ONLY
    "mount": lambda: sys_call("mount", b"none", b"/tmp", b"tmpfs", 0, None),
    "fsopen": lambda: os.close(sys_call("fsopen", b"tmpfs", 0)),
    "open-tree": lambda: os.close(sys_call("open_tree", -100, b"/tmp", 1)),  # AT_FDCWD, OPEN_TREE_CLONE
    "unshare-user": lambda: sys_call("unshare", 0x10000000),
    "clone3": lambda: sys_call("clone3", None, 0),
    "x32-getpid": x32_getpid,
}

if __name__ == "__main__":
    attempt = sys.argv[1]
    if attempt == "with-session-key":
        with_session_key(sys.argv[2:])
    if attempt in ("tiocsti", "tioclinux"):
        tty_request(attempt)
    try:
        ATTEMPTS[attempt]()
        print("ok")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
