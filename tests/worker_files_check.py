"""The sandbox's worker files where a layout puts them: each folder given holds the worker
script (structtest_worker.py) and the module it imports beside it, the code family's
strict rules (structtest_code_strict.py), and the worker starts from there with the
interpreter given, as `python3 structtest_worker.py` (the folder its sys.path[0]), and
answers two strict jobs: one it parses itself (strict_rename) and one whose inputs run
the task's function in a sandboxed child (strict_calls), both decided by the rules of
the module beside it. The packaging tests call it on the folders they install (the
build tree, the pip-installed package and share/, the .deb's tree, `cmake --install`).
Usage: python3 worker_files_check.py PYTHON DIR [DIR...]
Prints one line per folder; exit 1 with what is wrong."""
import json
import os
import subprocess
import sys
import time

FILES = ("structtest_worker.py", "structtest_code_strict.py")

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
    print("worker_files_check: {} holds the worker and its strict rules; the worker started "
          "in {:.2f} s and answered {} strict jobs".format(folder, started, len(JOBS)))
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


if __name__ == "__main__":
    main()
