"""The sandbox's worker files where a layout puts them: each folder given holds the worker
script (structtest_worker.py) and the modules it imports beside it, the code family's
strict rules (structtest_code_strict.py), paper rules (structtest_code_paper.py) and
generation jobs (structtest_code_generator.py), and the worker starts from there with
the interpreter given, as `python3 structtest_worker.py` (the folder its sys.path[0]),
and answers a job of each module: two strict jobs, one it parses itself (strict_rename)
and one whose inputs run the task's function in a sandboxed child (strict_calls), a
paper job (simulate, in a child) and a generation job (call_values), each decided by
the module beside it. From the first folder, copies of the worker with each module in
turn left out do not start, and name the file they lack and their folder. The packaging tests call it on the folders they install (the
build tree, the pip-installed package and share/, the .deb's tree, `cmake --install`).
Usage: python3 worker_files_check.py PYTHON DIR [DIR...]
Prints one line per folder; exit 1 with what is wrong."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

FILES = ("structtest_worker.py", "structtest_code_strict.py", "structtest_code_paper.py",
         "structtest_code_generator.py")

SOURCE = "def f(a, b):\n    c = a + b\n    return c\n"
RENAMED = "def f(a, b):\n    total = a + b\n    return total\n"
JOBS = [
    ({"op": "strict_rename", "source": SOURCE, "expected": RENAMED, "answer": RENAMED,
      "mapping": ["c:total"]},
     {"pass": True, "rule": "",
      "detail": "the source with the 1 renaming applied, nothing else changed"}),
    ({"op": "strict_calls", "source": "def f(x):\n    return x\n", "fn_name": "f",
      "gen_n": 2, "timeout": 4, "answer": "[1]\n[2]", "wall_seconds": 30},
     {"pass": True, "rule": "",
      "detail": "2 distinct literal inputs that fit f, and it runs on each"}),
    ({"op": "simulate", "answer": "[1 + 1, 3]", "expected": "[2, 3]", "wall_seconds": 30},
     {"pass": True, "answer": "[2, 3]", "expected": "[2, 3]"}),
    ({"op": "call_values", "programs": [{"source": SOURCE, "fn_name": "f",
                                         "inputs": ["1, 2"]}], "wall_seconds": 30},
     {"programs": [{"results": [{"ok": True, "repr": "3", "exact": True}]}]}),
]


def check(python, folder):
    """None, or what is wrong with the worker in `folder`."""
    missing = [name for name in FILES if not os.path.isfile(os.path.join(folder, name))]
    if missing:
        return "{}: no {} (it holds {})".format(folder, " or ".join(missing),
                                                 ", ".join(sorted(os.listdir(folder))))
    start = time.monotonic()
    worker = subprocess.Popen([python, "-s", os.path.join(folder, FILES[0])],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, cwd="/")
    try:
        hello = json.loads(worker.stdout.readline() or "{}")
        if hello.get("hello") != "structtest-worker":
            worker.stdin.close()
            return "{}: the worker did not start: {}".format(
                folder, worker.stderr.read().decode("utf-8", "replace").strip())
        started = time.monotonic() - start
        for k, (request, want) in enumerate(JOBS, 1):
            worker.stdin.write((json.dumps(dict(request, id=k)) + "\n").encode())
            worker.stdin.flush()
            reply = json.loads(worker.stdout.readline() or "{}")
            got = {key: reply.get(key) for key in want}
            if got != want or reply.get("id") != k:
                return "{}: {} answered {}, expected {}".format(folder, request["op"], reply,
                                                                want)
    finally:
        if not worker.stdin.closed:
            worker.stdin.close()
        worker.wait(timeout=30)
    print("worker_files_check: {} holds the worker and the code family's jobs; the worker "
          "started in {:.2f} s and answered {} jobs".format(folder, started, len(JOBS)))
    return None


def check_each_module_needed(python, folder):
    """None, or which copy of the worker without one of its modules did not say so."""
    for k, lacking in enumerate(FILES[1:], 1):
        with tempfile.TemporaryDirectory(prefix="structtest-worker-files-") as copy:
            for name in FILES[:k] + FILES[k + 1:]:
                shutil.copyfile(os.path.join(folder, name), os.path.join(copy, name))
            run = subprocess.run([python, "-s", os.path.join(copy, FILES[0])],
                                 stdin=subprocess.DEVNULL, capture_output=True, cwd="/",
                                 timeout=60)
            said = run.stderr.decode("utf-8", "replace").strip()
            if run.returncode == 0 or "{} not found in {}".format(lacking, copy) not in said:
                return "a worker without {} exited with status {} and said: {}".format(
                    lacking, run.returncode, said or run.stdout.decode("utf-8", "replace"))
    print("worker_files_check: a worker without any one of {} does not start and names "
          "it".format(", ".join(FILES[1:])))
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: python3 worker_files_check.py PYTHON DIR [DIR...]")
    python = sys.argv[1]
    for folder in sys.argv[2:]:
        problem = check(python, os.path.abspath(folder))
        if problem is not None:
            print("worker_files_check: FAILED: " + problem, flush=True)
            sys.exit(1)
    problem = check_each_module_needed(python, os.path.abspath(sys.argv[2]))
    if problem is not None:
        print("worker_files_check: FAILED: " + problem, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
