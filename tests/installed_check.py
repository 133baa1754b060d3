"""What a user of an installed structtest does first, run by the Python of the installed
place (a venv of the wheel, Debian's python3 over an extracted .deb) from a folder far
from the source tree: import structtest, check that it is the installed copy, generate a
few samples of every domain and score them. The reference answers pass, including the
code subtasks, whose checks run Python programs in the sandbox (its worker script must
have been found in the package), and summarization, whose rules split sentences with
the Punkt model (compiled into the module). Wrong answers fail with a reason.
Usage: python installed_check.py INSTALLED_DIR VERSION (structtest must come from
INSTALLED_DIR: the venv, the extracted package)
Prints one line, `installed_check: N samples scored ...`; exit 1 with the failure."""
import os
import sys
import time


def main():
    installed, version = os.path.realpath(sys.argv[1]), sys.argv[2]
    start = time.monotonic()
    import structtest
    where = os.path.realpath(structtest.__file__)
    if not where.startswith(installed + os.sep):
        sys.exit("installed_check: structtest was imported from {}, not from {}".format(where, installed))
    if structtest.__version__ != version:
        sys.exit("installed_check: structtest.__version__ is {!r}, expected {!r}".format(
            structtest.__version__, version))
    domains = sorted({s["domain"] for s in structtest.subtasks()})
    samples = structtest.generate(seed=7, tasks=domains, limit=2)
    got = {s["domain"] for s in samples}
    if got != set(domains):
        sys.exit("installed_check: generate gave domains {}, expected {}".format(sorted(got), domains))
    answers = [s["target"]["answer"] if isinstance(s["target"], dict) else s["target"]
               for s in samples]
    for rules in ("paper", "strict"):
        verdicts = structtest.score_batch(samples, answers, rules=rules)
        failed = [(s["subtask"], v.reason) for s, v in zip(samples, verdicts) if not v.passed]
        if failed:
            sys.exit("installed_check: reference answers failed under {}: {}".format(rules, failed))
    wrong = structtest.score_batch(samples, ["no answer here"] * len(samples), rules="strict")
    passed = [s["subtask"] for s, v in zip(samples, wrong) if v.passed or not v.reason]
    if passed:
        sys.exit("installed_check: a wrong answer passed (or failed without a reason): {}".format(passed))
    print("installed_check: {} samples scored ({} domains, {} subtasks) by structtest {} from {} "
          "in {:.2f} s".format(len(samples), len(domains), len({s["subtask"] for s in samples}),
                               version, os.path.dirname(where), time.monotonic() - start))


if __name__ == "__main__":
    main()
