#!/usr/bin/env python3
# `structtest.score_batch` from Python (issue 28) next to the CLI's `score` on the same
# records and to bench/reference_score.py (a Python stand-in for the reference scorer,
# its checker called per record), per non-code subtask. Records: the dev conformance
# corpus of the subtask (every model's file), repeated REPEAT times (default 4).
#
# Rates are records per second of wall time, each the best of RUNS runs (default 3):
#   cli/1      `structtest score -J 1 -i FILE -o FILE` (the whole process: read, score,
#              write), on one thread
#   cli        the same on every core (its default)
#   batch/1    score_batch(samples, responses, threads=1): the records as dicts already
#              in Python, as a trainer or harness has them; the call, with its hand-over
#              to C++, is what is timed
#   batch/all  the same with threads=0 (every core, its default)
#   reference  reference_score.py's timed loop (json.loads, its checker, json.dumps)
# and the ratios like for like, batch/1 / cli/1 and batch/all / cli (target: at least
# 0.8 each), and batch/1 / reference (goal: at least 20). Needs ../shared (or $STRUCTTEST_SHARED), python3-nltk for the reference,
# and a build with the Python module (scripts/build). Run with Debian's python3:
#   PYTHONPATH=build/python /usr/bin/python3 bench/python_score_bench.py
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("STRUCTTEST_SHARED", os.path.join(ROOT, "..", "shared"))
BINARY = os.environ.get("STRUCTTEST", os.path.join(ROOT, "build", "structtest"))
REPEAT = int(os.environ.get("REPEAT", "4"))
RUNS = int(os.environ.get("RUNS", "3"))
SUBTASKS = os.environ.get("SUBTASKS", "length bullet_points numbered_points questions "
                          "bullet_points_length numbered_points_length indented_bullet_points "
                          "html_easy html_hard math_easy math_hard").split()

sys.path.insert(0, os.path.join(ROOT, "build", "python"))
import structtest  # noqa: E402


def best(f):
    return min(f() for _ in range(RUNS))


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    dev = os.path.join(SHARED, "conformance", "dev")
    if not os.path.isdir(dev):
        sys.exit("python_score_bench: {} not found".format(dev))
    env = dict(os.environ, NLTK_DATA=os.path.join(SHARED, "nltk_data"))
    print("{:<24} {:>7} {:>8} {:>8} {:>9} {:>10} {:>8} {:>7} {:>8} {:>7}".format(
        "subtask", "records", "cli1/s", "cli/s", "batch1/s", "batchall/s", "ref/s", "b1/cli1",
        "ball/cli", "b1/ref"))
    worst_cli = worst_ref = None
    with tempfile.TemporaryDirectory() as work:
        for subtask in SUBTASKS:
            lines = []
            for model in sorted(os.listdir(dev)):
                path = os.path.join(dev, model, subtask + ".jsonl")
                if os.path.exists(path):
                    with open(path, encoding="utf-8") as f:
                        lines += [line for line in f if line.strip()]
            lines *= REPEAT
            if not lines:
                continue
            records = os.path.join(work, subtask + ".jsonl")
            with open(records, "w", encoding="utf-8") as f:
                f.writelines(lines)
            out = os.path.join(work, "out.jsonl")
            def cli_run(*jobs):
                return best(lambda: timed(lambda: subprocess.run(
                    [BINARY, "score", *jobs, "-i", records, "-o", out], env=env, check=False,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)))
            cli1 = cli_run("-J", "1")
            cli = cli_run()
            samples = [json.loads(line) for line in lines]
            responses = [s.pop("response") for s in samples]
            batch1 = best(lambda: timed(lambda: structtest.score_batch(samples, responses, threads=1)))
            batch_all = best(lambda: timed(lambda: structtest.score_batch(samples, responses)))

            def reference():
                r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "reference_score.py"),
                                    records, out], env=env, capture_output=True, text=True)
                fields = dict(kv.split("=", 1) for kv in r.stdout.split() if "=" in kv)
                return float(fields["seconds"])
            ref = best(reference)
            n = len(lines)
            ratio_one, ratio_all, ratio_ref = cli1 / batch1, cli / batch_all, ref / batch1
            ratio_cli = min(ratio_one, ratio_all)
            worst_cli = ratio_cli if worst_cli is None else min(worst_cli, ratio_cli)
            worst_ref = ratio_ref if worst_ref is None else min(worst_ref, ratio_ref)
            print("{:<24} {:>7} {:>8.0f} {:>8.0f} {:>9.0f} {:>10.0f} {:>8.0f} {:>7.2f} {:>8.2f} "
                  "{:>7.1f}".format(subtask, n, n / cli1, n / cli, n / batch1, n / batch_all,
                                     n / ref, ratio_one, ratio_all, ratio_ref))
    print("lowest of batch/1 / cli/1 and batch/all / cli: {:.2f} (target 0.8); lowest "
          "batch/1 / reference: {:.1f} (goal 20)".format(worst_cli, worst_ref))


if __name__ == "__main__":
    main()
