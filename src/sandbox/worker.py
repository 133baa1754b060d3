"""structtest's python3 worker: Python's own judgement for the code checkers.

structtest (src/sandbox/python_pool.cc) starts a few of these long-lived processes and
talks to each over its stdin/stdout: one JSON object per line each way. The first line
the worker writes is a hello describing the interpreter and the sandbox it can build;
then it answers requests one at a time, in order.

"numpy" asks whether numpy imports, and its version: a child imports it (~0.15 s), only
when structtest needs to know, once per pool (the hello only says whether it is
installed, which costs nothing).

Two kinds of request:
- "analyze": which lines of a source parse, and the names its plain assignments bind,
  as Python's ast sees them. Source code comes from the task data, never from a model,
  and is only parsed, so this runs in the worker itself (structtest caches the answer
  per distinct source).
- "simulate", "calls", "stdin", "subst" (scoring; all but "stdin" are in
  structtest_code_paper.py), "strict_add_print", "strict_rename",
  "strict_calls", "strict_simulate" (the strict rules: model text parsed with ast, never
  evaluated; they are in structtest_code_strict.py, see below), "returned" (what a
  task's function returns, for strict_simulate) and
  "call_values", "stdin_outputs" (computing expected outputs of task programs when
  generating, in structtest_code_generator.py): anything that evaluates, executes or parses model text. Each
  runs in a fresh child of the worker (see run_job; job_stdin may run several inputs in
  one; those that only parse small texts are answered by the worker itself, see
  run_inline): its own PID namespace where the
  kernel allows (so that every process it starts dies with it), the worker's network
  namespace (no interface up) and mount namespace (everything read-only but a private
  tmpfs on /tmp, /proc showing only the job's own processes), an empty working
  directory of its own on that tmpfs, removed afterwards, rlimits on CPU, memory, file
  size, processes and open files, an unprivileged user when we are root, and a
  wall-clock limit after which all of its processes are killed. Model-written text is
  only ever evaluated there.

This file is part of structtest and is installed next to the structtest binary as
structtest_worker.py, with the code family's jobs beside it, which it imports: its
strict rules as structtest_code_strict.py (src/tasks/code/strict.py), its paper rules as
structtest_code_paper.py (src/tasks/code/paper.py) and its generation jobs as
structtest_code_generator.py (src/tasks/code/generator.py). All need only
the standard library (numpy is imported in a job whose task code names it, because the
reference harness's preamble imports it).
"""

import ast
import builtins
import ctypes
import gc
import json
import mmap
import os
import re
import reprlib
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback
import zlib

# The code family's jobs, modules of their own beside this script (sys.path[0] is this
# script's folder, as for `python3 structtest_worker.py`): without one of them the
# worker does not start, and says which file it lacks and where it looked.
def _import_beside(module, holds):
    try:
        return __import__(module)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
    sys.exit("structtest worker: %s.py not found in %s, beside the worker script (it holds "
             "%s and is installed with the worker: a copy of the worker needs it beside it)"
             % (module, sys.path[0], holds))


code_strict = _import_beside("structtest_code_strict", "the code family's strict rules")
code_paper = _import_beside("structtest_code_paper", "the code family's paper rules")
code_generator = _import_beside("structtest_code_generator",
                                "the code family's generation jobs")

PROTOCOL = 2

# The import preamble of the reference's execution harness (APPS testing_util), which
# StructTest's test_case_inputs_gen runs before the task's code.
PREAMBLE = (
    "import sys\nimport time\nimport itertools\n"
    "from itertools import accumulate, product, permutations, combinations\n"
    "import collections\n"
    "from collections import Counter, OrderedDict, deque, defaultdict, ChainMap\n"
    "from functools import lru_cache\nimport math\n"
    "from math import sqrt, sin, cos, tan, ceil, fabs, floor, gcd, exp, log, log2\n"
    "import fractions\nfrom typing import List, Tuple\nimport numpy as np\n"
    "import random\nimport heapq\nfrom heapq import *\n")
# The preamble as run before code that does not name numpy: a program can only use a
# name its text holds, and importing numpy costs a job ~0.1 s, while holding it in the
# worker would make every job's fork dearer. Same lines, so that errors name the same
# line numbers.
PREAMBLE_WITHOUT_NUMPY = PREAMBLE.replace("import numpy as np\n", "\n")
_NAMES_NUMPY = re.compile(r"\b(np|numpy)\b")


def _preamble_for(source):
    return PREAMBLE if _NAMES_NUMPY.search(source) else PREAMBLE_WITHOUT_NUMPY

# Limits of one job. A request sets its wall-clock limit (at most MAX_JOB_SECONDS).
SANDBOX_UID_BASE = 200000    # jobs of worker process P run as uid BASE + P (no account)
MEMORY_HEADROOM = 2 << 30    # address space allowed above what the worker already maps
FILE_SIZE_LIMIT = 8 << 20    # largest file (and so stdout) a job may write
TMPFS_SIZE = "32m"           # the worker's private /tmp, which holds the job directories
NPROC_LIMIT = 64             # processes of the job's uid
NOFILE_LIMIT = 64
RESULT_CAP = 1 << 20         # bytes of result a job may send back (kJobResultCap in
                             # program_generator.cc sizes generation jobs to fit)
REPR_CAP = 300               # characters of a value shown in a reason
MAX_JOB_SECONDS = 600
LIMITS = {"memory": 4 << 30}  # address space of a job, set once the worker is loaded
# A job's environment (HOME and TMPDIR are its directory). numpy, imported in a job,
# must not start a thread per core.
JOB_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# With a /tmp of its own, the worker runs every job in this directory (created for the
# job, removed after it), and its own environment is the jobs': a job's child then has
# nothing to set (clearing an environment there costs ~2 ms of page faults).
FIXED_JOB_DIR = "/tmp/job"

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_RELATIME = 1 << 21
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                        ctypes.c_ulong, ctypes.c_char_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                        ctypes.c_ulong]

# What this worker could set up, reported in the hello.
SANDBOX = {"network": "host", "pid_namespace": False, "mount_namespace": False,
           "user": "same as structtest", "user_namespace": False, "uid": None}
_WORKER_PID = [os.getpid()]


def _unshare(flags):
    return _libc.unshare(ctypes.c_int(flags)) == 0


def _mount(source, target, fstype, flags, data):
    enc = lambda s: None if s is None else s.encode()
    return _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) == 0


def _prctl(option, arg):
    return _libc.prctl(option, arg, 0, 0, 0) == 0


def _write_file(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False


# ---- worker set-up -------------------------------------------------------------------

def setup_worker():
    """Isolation shared by every job of this worker, and the preamble's imports.

    The process structtest started only creates the namespaces and then forks the real
    worker, which is process 1 of a new PID namespace: every process a job starts lives
    in that namespace, so the worker can kill all of them after each job (kill(-1)),
    and no job can signal the worker (process 1 ignores signals from inside it).
    """
    # No parent-death signal here: it fires when the structtest *thread* that started
    # us ends, and structtest may start workers from short-lived threads. The worker
    # leaves when structtest closes its end of the socket (at exit, or when it dies).
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # A uid of our own per worker (process ids of live processes are unique), so that
    # the process limit of one worker's job does not count another worker's processes.
    job_uid = SANDBOX_UID_BASE + os.getpid()
    if os.geteuid() != 0:
        # A user namespace makes us root inside it, so the other namespaces (and the
        # tmpfs mounts) become possible without privileges.
        uid, gid = os.geteuid(), os.getegid()
        if _unshare(CLONE_NEWUSER):
            _write_file("/proc/self/setgroups", "deny")
            if (_write_file("/proc/self/uid_map", "0 %d 1" % uid) and
                    _write_file("/proc/self/gid_map", "0 %d 1" % gid)):
                SANDBOX["user_namespace"] = True
    if _unshare(CLONE_NEWNET):
        SANDBOX["network"] = "none (own network namespace, no interface up)"
    _unshare(CLONE_NEWIPC)
    _unshare(CLONE_NEWUTS)
    own_mounts = _unshare(CLONE_NEWNS) and _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    if _unshare(CLONE_NEWPID):
        child = os.fork()
        if child != 0:
            # Stay only to pass on the worker's fate; structtest talks to the child.
            for fd in (0, 1):
                os.close(fd)
            _, status = os.waitpid(child, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        SANDBOX["pid_namespace"] = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _WORKER_PID[0] = os.getpid()
    if own_mounts:
        # The worker's view of the file system: everything read-only, except a private
        # tmpfs on /tmp (root's; each job gets a directory of its own there), and a
        # /proc that shows a job only its own processes.
        _remount_read_only()
        if _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
                  "size=%s,mode=755" % TMPFS_SIZE):
            SANDBOX["mount_namespace"] = True
        for d in ("/var/tmp", "/dev/shm", "/run/lock"):
            _mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k")
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    if os.geteuid() == 0 and not SANDBOX["user_namespace"]:
        SANDBOX["uid"] = job_uid
        SANDBOX["user"] = "uid %d (no account, no capabilities)" % job_uid
    if SANDBOX["mount_namespace"]:
        _set_environment(FIXED_JOB_DIR)
    # Import the preamble's modules once, so that each forked job finds them loaded; all
    # but numpy (see _preamble_for), which is only tried, in a child.
    exec(PREAMBLE_WITHOUT_NUMPY, {})
    LIMITS["memory"] = _memory_limit()


def _numpy_installed():
    """Whether the interpreter finds a numpy package (without importing it)."""
    import importlib.util
    try:
        return importlib.util.find_spec("numpy") is not None
    except BaseException:
        return False


def _set_environment(job_dir):
    os.environ.clear()
    os.environ.update(JOB_ENVIRONMENT, HOME=job_dir, TMPDIR=job_dir)


def try_numpy():
    """{"numpy": its version} or {"numpy_error": why it does not import}, found in a child
    that imports it and leaves (structtest asks once per pool)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            try:
                import numpy
                found = {"numpy": str(numpy.__version__)}
            except BaseException as e:  # numpy missing or broken
                found = {"numpy_error": _describe(e)}
            os.write(w, json.dumps(found).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    try:
        return json.loads(data.decode())
    except ValueError:
        return {"numpy_error": "importing numpy ended the process (status %d)" % status}


# ---- small helpers -------------------------------------------------------------------

def _describe(e):
    """'TypeError: f() takes 1 positional argument but 2 were given' (one line)."""
    try:
        msg = str(e)
    except BaseException:
        msg = "<unprintable>"
    text = type(e).__name__ + (": " + msg if msg else "")
    text = " ".join(text.split())
    return text[:REPR_CAP] + ("..." if len(text) > REPR_CAP else "")


_repr = reprlib.Repr()
_repr.maxstring = REPR_CAP
_repr.maxother = REPR_CAP
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 20
_repr.maxlevel = 6


def _safe_repr(value):
    try:
        text = _repr.repr(value)
    except BaseException as e:
        return "<repr failed: %s>" % _describe(e)
    return text[:REPR_CAP] + ("..." if len(text) > REPR_CAP else "")


def _assigned_names(tree):
    """Targets of plain assignments (x = ..., x = y = ...) anywhere in the tree."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return sorted(names)


def _signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "signal %d" % sig


# ---- analysis (in the worker; source code only, parsed, never run) --------------------

def analyze(req):
    source = req["source"]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        return {"parses": False, "syntax_error": _describe(e)}
    lines = []
    for line in source.split("\n"):
        if "=" not in line:
            lines.append(None)
            continue
        try:
            names = _assigned_names(ast.parse(line.strip()))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            lines.append({"parses": False})
            continue
        lines.append({"parses": True, "names": names})
    return {"parses": True, "names": _assigned_names(tree), "lines": lines}


# ---- jobs (each in a fresh sandboxed child) -------------------------------------------

class _TimeLimit(Exception):
    pass


def _on_alarm(signum, frame):
    raise _TimeLimit()


def _leave_if_forked():
    """A copy of the job made by os.fork() in the program must not report results."""
    if os.getpid() != _JOB_PID[0]:
        os._exit(0)


_JOB_PID = [0]
# Two ints, shared by the worker and its jobs (an anonymous shared mapping survives
# fork): where a generation job is, see _mark.
_PROGRESS = mmap.mmap(-1, 8)


def job_stdin(req, run_child):
    """test_case_inputs_gen, stdin style: the program runs on each input as __main__,
    with the input on stdin, each time in a process that no other run has touched.
    Run by the worker itself: each process is a job's sandboxed child (run_child), all
    of them in the job's directory.

    A process per input costs about 20 ms of page faults (see run_inline), so a process
    goes on to the next input for as long as each run succeeds and leaves the process as
    it found it: the next run then starts in a process as good as fresh. A run that
    leaves something behind (a thread, a child process, a changed directory, builtins,
    signal handler...) ends its process, and the next input starts a new one. A run that
    fails in a process that ran an input before is run again in a process of its own,
    and that run's result is the input's: what ran before can never make an input fail."""
    limit = max(1, int(req.get("timeout", 4)))
    inputs = req["inputs"]
    alone = bool(req.get("alone"))  # a process per input (tests compare the two)
    results, processes = [], 0
    while len(results) < len(inputs) and (not results or results[-1].get("ok")):
        processes += 1
        done = _run_in_one_process(req["source"], inputs, len(results), limit, alone, run_child)
        if isinstance(done, dict):
            return done
        for i, status in enumerate(done):
            if not status.get("ok") and i > 0:  # (a failure is the last status)
                processes += 1
                status = _run_in_one_process(req["source"], inputs, len(results), limit, True,
                                             run_child)[0]
            results.append(status)
    return {"results": results, "processes": processes}


def _run_in_one_process(source, inputs, k, limit, only_one, run_child):
    """Runs the program on inputs k, k+1, ... in one sandboxed child, each run within
    `limit` seconds, stopping after the first failure, or after the first run that
    leaves something behind, or (only_one) after one run. Returns the status of each
    input it ran, or the job's result when the source does not compile ("load_error") or
    the child could not be set up ("sandbox_error")."""
    def runner(w):
        try:
            code = compile(source, "<program>", "exec")
        except BaseException as e:
            os.write(w, json.dumps({"load_error": _describe(e)}).encode() + b"\n")
            return
        me = os.getpid()
        before = _process_state()
        for j in range(k, len(inputs)):
            status = _run_here(code, inputs[j], j)
            if os.getpid() != me:
                return  # a copy the program forked
            same = _restore_process_state(before)
            os.write(w, (json.dumps([status, same]) + "\n").encode("utf-8", "replace"))
            if only_one or not status.get("ok") or not same:
                return

    status, data = run_child(runner, limit)
    done, same = [], True
    lines = data.split(b"\n")
    try:
        for line in lines[:-1]:
            entry = json.loads(line.decode("utf-8", "replace"))
            if isinstance(entry, dict):
                return entry  # the source does not compile
            result, same = entry
            done.append(result)
        failure = json.loads(lines[-1].decode("utf-8", "replace")) if lines[-1] else None
        if isinstance(failure, dict) and "sandbox_error" in failure:
            return failure  # the child could not be set up
    except ValueError:
        pass
    if not done or (done[-1].get("ok") and same and not only_one and
                    len(done) < len(inputs) - k):
        # It ended while an input was running (or before the first one started).
        done.append({"ok": False, "timeout": True} if status == "timeout" else
                    {"ok": False, "error": status or "no result"})
    return done


def _run_here(code, text, k):
    """One run of the program, as __main__, on input `text` (number k), in this process;
    its output goes to a file of its own."""
    in_path = "stdin-%d.txt" % k
    with open(in_path, "w", encoding="utf-8", errors="surrogatepass") as f:
        f.write(text)
    # (A run before this one may have closed 0, 1 or 2, which open then hands out.)
    fd = os.open(in_path, os.O_RDONLY)
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)
    out = os.open("stdout-%d.txt" % k, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for target in (1, 2):
        if out != target:
            os.dup2(out, target)
    if out > 2:
        os.close(out)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = sys.stdout
    status = {"ok": True}
    try:
        exec(code, {"__name__": "__main__", "__builtins__": builtins})
    except SystemExit as e:
        if e.code not in (None, 0):
            status = {"ok": False, "error": "exit status %s" % _safe_repr(e.code)}
    except BaseException as e:
        status = {"ok": False, "error": _describe(e)}
    try:
        sys.stdout.flush()
    except BaseException as e:
        status = {"ok": False, "error": _describe(e)}
    if status["ok"]:
        # What the run printed, as a digest: strict tells apart two inputs that are one
        # test (an input and the same input with lines added that change nothing it
        # prints).
        try:
            with open("stdout-%d.txt" % k, "rb") as f:
                data = f.read()
            status["out"] = "%d:%08x" % (len(data), zlib.crc32(data))
        except BaseException:
            pass
    return status


_SIGNALS = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]


def _process_state():
    """What one run of a program could leave behind for the next run in its process."""
    return {"cwd": os.getcwd(), "builtins": dict(builtins.__dict__), "path": list(sys.path),
            "modules": dict(sys.modules), "environ": dict(os.environ),
            "signals": [signal.getsignal(s) for s in _SIGNALS],
            "recursion": sys.getrecursionlimit(), "digits": sys.get_int_max_str_digits(),
            "gc": (gc.isenabled(), gc.get_threshold()), "switch": sys.getswitchinterval(),
            "umask": _umask()}


def _umask():
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _restore_process_state(before):
    """Puts back the settings a program commonly changes and would set again on its next
    run (recursion limit, int digits, gc, switch interval, thread stack size, umask), and
    says whether the process is otherwise as `before` found it: no thread, child
    process, timer, tracer or changed signal handler left, the same directory, builtins,
    sys.path, environment, and no module that was loaded changed for another."""
    sys.setrecursionlimit(before["recursion"])
    sys.set_int_max_str_digits(before["digits"])
    (gc.enable if before["gc"][0] else gc.disable)()
    gc.set_threshold(*before["gc"][1])
    sys.setswitchinterval(before["switch"])
    os.umask(before["umask"])
    threading = sys.modules.get("threading")
    if threading is not None:
        threading.stack_size(0)
    try:
        os.waitpid(-1, os.WNOHANG)
        return False  # a child process, running or not
    except ChildProcessError:
        pass
    try:
        if len(os.listdir("/proc/self/task")) != 1:
            return False
    except OSError:
        return False
    if any(signal.getitimer(t) != (0.0, 0.0) for t in (
            signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)):
        return False
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return False
    if [signal.getsignal(s) for s in _SIGNALS] != before["signals"]:
        return False
    modules = sys.modules
    if any(modules.get(name) is not m for name, m in before["modules"].items()):
        return False
    b = builtins.__dict__
    return (os.getcwd() == before["cwd"] and len(b) == len(before["builtins"]) and
            all(b.get(name) is v for name, v in before["builtins"].items()) and
            sys.path == before["path"] and os.environ == before["environ"])


def _timed(fn, limit):
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _mark(program, inp):
    """Notes where a generation job is (program and input numbers, from 0; input -1
    while the program loads) in memory shared with the worker, so that a job that dies
    without a result can be reported with the program and input that were running."""
    struct.pack_into("ii", _PROGRESS, 0, program, inp)


# ---- the code family's jobs: in structtest_code_{paper,generator,strict}.py ------------
#
# The code family's paper rules (src/tasks/code/paper.py), its generation jobs
# (src/tasks/code/generator.py) and its strict rules (src/tasks/code/strict.py, see
# docs/strict.md), imported above, are the jobs of the tables below, the worker's
# protocol and sandbox being all that is in this file. They use the worker's helpers
# above, handed over here.
code_paper.bind(globals())
code_generator.bind(globals())
code_strict.bind(globals())

# Jobs the worker runs itself (see run_job), each child they need made by
# run_child(body, limit); every other job runs in one child.
RUN_BY_WORKER = {"stdin": job_stdin}
JOBS = {"simulate": code_paper.job_simulate, "calls": code_paper.job_calls,
        "subst": code_paper.job_subst, "call_values": code_generator.job_call_values,
        "stdin_outputs": code_generator.job_stdin_outputs,
        "strict_add_print": code_strict.job_strict_add_print,
        "strict_rename": code_strict.job_strict_rename,
        "strict_simulate": code_strict.job_strict_simulate,
        "returned": code_strict.job_returned,
        "strict_calls": code_strict.job_strict_calls}


# ---- jobs answered without a child ------------------------------------------------------
#
# A job's child costs about 20 ms, most of it page faults (the fork's copy-on-write, in
# the child and in the worker), against well under a millisecond for parsing a small
# answer. The jobs that run nothing are answered by the worker itself when every text
# of the request is small, within a time budget: the strict rules of
# add_print_statements and replace_variables (which parse programs with ast),
# simulate when its expected output is a literal and its answer a literal too
# (ast.literal_eval reads a literal as eval does) or no expression at all (eval would
# raise compile's error), strict simulate when its expected output is a literal and the
# task's function is not given (so not run), strict test_case_inputs_gen when the inputs
# fail before the function would run (count, literals, distinct, arity: all parsed),
# and paper test_case_inputs_gen when its lines, each a literal or no expression, do not
# give the count asked for. Such texts are far from the parser's memory, and Python's
# parser and AST builder stop deep nesting with an exception, not a crash. Anything
# unusual (a text too long, the budget spent, an exception out of the job) and the job
# runs in a child as any other, which gives the result that counts. The call is made at
# the depth run_job makes it in the child (see _at_child_depth), so a recursion limit is
# met at the same nesting either way.

INLINE = {"strict_add_print": code_strict.job_strict_add_print,
          "strict_rename": code_strict.job_strict_rename,
          "simulate": code_paper.inline_simulate,
          "strict_simulate": code_strict.inline_strict_simulate,
          "strict_calls": code_strict.inline_strict_calls, "calls": code_paper.inline_calls}
INLINE_TEXT_LIMIT = 64 << 10   # characters of each text of an inline request
INLINE_SECONDS = 2.0           # time budget of an inline job


class _InlineBudget(BaseException):
    pass


def _on_inline_budget(signum, frame):
    _INLINE_SPENT[0] = True
    raise _InlineBudget()


_INLINE_SPENT = [False]


def _at_child_depth(job, req):
    """job(req), called as many frames below run_inline as a job's child calls it below
    run_job (run_job, _run_child, body, job): Python's recursion limits (the parser's
    and compiler's among them) count the frames above, and must be met at the same
    nesting either way."""
    return (lambda: job(req))()


def run_inline(req):
    """The job's result computed here, or None when it must run in a child."""
    for value in req.values():
        if isinstance(value, str) and len(value) > INLINE_TEXT_LIMIT:
            return None
        if isinstance(value, list) and sum(len(str(v)) for v in value) > INLINE_TEXT_LIMIT:
            return None
    _INLINE_SPENT[0] = False
    previous = signal.signal(signal.SIGALRM, _on_inline_budget)
    try:
        # "inline_seconds" shortens the budget (tests make it run out anywhere).
        budget = min(INLINE_SECONDS, float(req.get("inline_seconds", INLINE_SECONDS)))
        signal.setitimer(signal.ITIMER_REAL, max(budget, 1e-6))
        try:
            result = _at_child_depth(INLINE[req["op"]], req)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException:
        # The job's own exception, or the budget's, wherever it came (even in the
        # finally above, before the timer was stopped: it fires once, so it is stopped).
        result = None
    signal.signal(signal.SIGALRM, previous)
    if _INLINE_SPENT[0] or not isinstance(result, dict):
        return None  # the budget ran out (perhaps inside a job's own except): in a child
    return result


# ---- the sandbox ------------------------------------------------------------------------

def _supervise(pid, result_fd, deadline, kill_group, per_line=None):
    """Waits for child `pid` until `deadline`, collecting what it writes on result_fd
    (with `per_line`, each line it ends moves the deadline to `per_line` seconds later).
    Returns (None | "timeout" | "killed by SIGNAL" | "exit status N", bytes)."""
    data = bytearray()
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    poller = select.poll()
    poller.register(result_fd, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    timed_out = False
    reading = True
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        events = poller.poll(min(remaining, 0.05 if pidfd is None else remaining) * 1000)
        exited = False
        for fd, _ in events:
            if fd == result_fd and reading:
                chunk = os.read(result_fd, 65536)
                if chunk and len(data) < RESULT_CAP:
                    data += chunk
                    if per_line is not None and b"\n" in chunk:
                        deadline = time.monotonic() + per_line
                elif not chunk:
                    reading = False
                    poller.unregister(result_fd)
            elif fd == pidfd:
                exited = True
        if pidfd is None and os.waitpid(pid, os.WNOHANG)[0] == pid:
            # Reaped here already: report from what we saw.
            _kill(pid, kill_group)
            _drain(result_fd, data)
            return None, bytes(data)
        if exited:
            break
    if timed_out:
        _kill(pid, kill_group)
    _, status = os.waitpid(pid, 0)
    _kill(pid, kill_group)  # whatever the child left running in its group
    if pidfd is not None:
        os.close(pidfd)
    _drain(result_fd, data)
    if timed_out:
        return "timeout", bytes(data)
    if os.WIFSIGNALED(status):
        return "killed by " + _signal_name(os.WTERMSIG(status)), bytes(data)
    code = os.waitstatus_to_exitcode(status)
    return (None if code == 0 else "exit status %d" % code), bytes(data)


def _kill(pid, group):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    if group:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def _drain(fd, data):
    os.set_blocking(fd, False)
    try:
        while len(data) < RESULT_CAP:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass


def _remount_read_only():
    """Every mount of this (private) mount namespace becomes read-only."""
    try:
        with open("/proc/self/mountinfo") as f:
            entries = [line.split() for line in f]
    except OSError:
        return
    keep = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC,
            "relatime": MS_RELATIME}
    for fields in entries:
        if len(fields) < 6:
            continue
        target = fields[4].encode().decode("unicode_escape")
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for opt in fields[5].split(","):
            flags |= keep.get(opt, 0)
        _mount(None, target, None, flags, None)


def _enter_sandbox(job_dir, limits):
    """In the job's child, before any job text is looked at."""
    os.setsid()
    uid = SANDBOX["uid"]
    os.chdir(job_dir)
    devnull = os.open("/dev/null", os.O_RDWR)
    os.dup2(devnull, 0)
    out = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if uid is not None:
        os.fchown(out, uid, uid)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.close(devnull)
    cpu = limits["cpu"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory"], limits["memory"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_NPROC, (NPROC_LIMIT, NPROC_LIMIT))
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE_LIMIT, NOFILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a credential change clears it
    if job_dir != FIXED_JOB_DIR:
        _set_environment(job_dir)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = sys.stdout


def _memory_limit():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024 + MEMORY_HEADROOM
    except (OSError, ValueError):
        pass
    return 4 << 30


def _run_child(job_dir, limits, body, deadline, per_line=None):
    """Forks a sandboxed child that runs body(w), w being its result pipe, waits for it
    until `deadline` (see _supervise for per_line), kills whatever it left, and returns
    (_supervise's status, what it wrote)."""
    r, w = os.pipe()
    try:
        _mark(-1, -1)
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                _JOB_PID[0] = os.getpid()
                _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGCHLD):
                    signal.signal(sig, signal.SIG_DFL)
                os.closerange(3, w)
                os.closerange(w + 1, 1 << 16)
                _enter_sandbox(job_dir, limits)
                body(w)
            except BaseException as e:
                if os.getpid() == _JOB_PID[0]:
                    try:
                        os.write(w, json.dumps({"sandbox_error": "job: " + _describe(e)}).encode())
                    except BaseException:
                        pass
            finally:
                os._exit(0)
        os.close(w)
        w = None
        return _supervise(pid, r, deadline, kill_group=not SANDBOX["pid_namespace"],
                          per_line=per_line)
    finally:
        for fd in (r, w):
            if fd is not None:
                os.close(fd)
        _kill_leftovers()


def run_job(req):
    """Runs one job in a fresh sandboxed child and returns its result; when the job did
    not answer (time limit, killed, crashed, a result larger than RESULT_CAP) the result
    has "sandbox_error" and, for a generation job, "at_program" and "at_input": the
    numbers (from 0; input -1 while loading) of the program and input it was running.
    A job of RUN_BY_WORKER is run by the worker, in as many sandboxed children as it
    asks for, all of them in the job's directory."""
    wall = min(float(req.get("wall_seconds", 30)), MAX_JOB_SECONDS)
    limits = {"cpu": int(wall) + 1, "memory": LIMITS["memory"]}
    if SANDBOX["mount_namespace"]:
        job_dir = FIXED_JOB_DIR
        shutil.rmtree(job_dir, ignore_errors=True)  # (only if a job's clean-up failed)
        os.mkdir(job_dir, 0o700)
    else:
        job_dir = tempfile.mkdtemp(prefix="job-")
    try:
        if SANDBOX["uid"] is not None:
            os.chown(job_dir, SANDBOX["uid"], SANDBOX["uid"])
        if req["op"] in RUN_BY_WORKER:
            return RUN_BY_WORKER[req["op"]](req, lambda body, limit: _run_child(
                job_dir, limits, body, time.monotonic() + limit, per_line=limit))

        def body(w):
            result = JOBS[req["op"]](req)
            _leave_if_forked()
            os.write(w, json.dumps(result).encode("utf-8", "replace"))

        status, data = _run_child(job_dir, limits, body, time.monotonic() + wall)
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)
        if SANDBOX["uid"] is None and SANDBOX["mount_namespace"]:
            # The job ran as our own user (in a user namespace), so it could write to
            # the worker's /tmp as well: clear it for the next job.
            for name in os.listdir("/tmp"):
                path = os.path.join("/tmp", name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
    try:
        result = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        result = None
    if not isinstance(result, dict):
        if status == "timeout":
            failure = {"sandbox_error": "time limit", "timeout": True, "wall_seconds": wall}
        elif len(data) >= RESULT_CAP:
            failure = {"sandbox_error": "the job's result is larger than its limit of %d bytes"
                                        % RESULT_CAP, "result_limit": RESULT_CAP}
        else:
            if status == "killed by SIGXCPU":
                status += " (the job's cpu time limit of %d s)" % limits["cpu"]
            failure = {"sandbox_error": "the job ended without a result (%s)"
                                        % (status or "exit status 0")}
        program, inp = struct.unpack_from("ii", _PROGRESS, 0)
        if program >= 0:  # a generation job: where it was
            failure["at_program"] = program
            failure["at_input"] = inp
        return failure
    if status == "timeout":
        result["late"] = True
    return result


def _kill_leftovers():
    """Kills and reaps every process a job left behind. As process 1 of our own PID
    namespace, kill(-1) reaches exactly the job's processes (whatever their session or
    group); without that namespace only the job's process group can be reached."""
    if SANDBOX["pid_namespace"]:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if SANDBOX["pid_namespace"] else os.WNOHANG)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
        if pid == 0:
            return


# ---- the protocol loop ----------------------------------------------------------------

def _read_lines(fd):
    buf = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            yield buf[:nl]
            buf = buf[nl + 1:]


def _send(obj):
    data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8", "replace")
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]


def handle(req):
    op = req.get("op")
    if op == "analyze":
        return analyze(req)
    if op == "ping":
        return {"pong": True}
    if op == "numpy":
        return try_numpy()
    if op in JOBS or op in RUN_BY_WORKER:
        # "child": true runs the job in a child whatever it is (tests compare the two).
        result = run_inline(req) if op in INLINE and not req.get("child") else None
        return result if result is not None else run_job(req)
    return {"error": "unknown op %r" % (op,)}


def main():
    setup_worker()
    _send({"hello": "structtest-worker", "protocol": PROTOCOL,
           "python": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable,
           "numpy_installed": _numpy_installed(), "sandbox": SANDBOX})
    for line in _read_lines(0):
        try:
            req = json.loads(line)
            resp = handle(req)
        except BaseException as e:
            if os.getpid() != _WORKER_PID[0]:  # never let a forked copy talk
                os._exit(1)
            resp = {"error": "worker: " + _describe(e) + " " +
                    traceback.format_exc(limit=3).replace("\n", " | ")[-1500:]}
            req = req if isinstance(req, dict) else {}
        if os.getpid() != _WORKER_PID[0]:
            os._exit(1)
        resp["id"] = req.get("id") if isinstance(req, dict) else None
        _send(resp)


if __name__ == "__main__":
    main()
