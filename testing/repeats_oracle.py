#!/usr/bin/env python3
"""The figures of a run of repeated samples (run --repeats K), from its export alone.

  python3 testing/repeats_oracle.py EXPORT.jsonl K
  python3 testing/repeats_oracle.py --compare EXPORT_A.jsonl EXPORT_B.jsonl K

reads `structtest export --all` of the run and prints, per "domain/subtask", what
report.json should say: the mean accuracy over the repeats with its 95% interval (a
sample's repeats, within its source item's, one cluster: the design effect of the
clustered variance with an all-pass and an all-fail pseudo-cluster of the mean cluster
size added and the CR1 factor (C + 2) / (C + 1), Wilson's continuity-corrected interval
solved by bisection on n / deff), the samples with all K repeats scored, consistency,
pass@k and pass^k for k = 1..K. The estimators are computed here from their definitions
with exact integers (math.comb and Fraction), not from the closed products of stats.cc.
Only subtasks that count samples (not simulate_execute's tasks).

With --compare, what `compare A B --flips --format json` should say of two such runs,
from their exports: per "domain/subtask", the samples with all K repeats scored in both
runs, their repeats (n), each run's accuracy over them, the samples with more passing
repeats in A (pass_to_fail) and in B (fail_to_pass), McNemar's exact p of those two
counts (exact integers), and each such sample's flip; and the shared and paired totals.
"""

import collections
import json
import math
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_oracle import wilson_cc_by_bisection  # noqa: E402

SOURCE_FIELDS = ["gsm8k_index", "problem_id", "document_id", "task_id"]


def source_item(record):
    context = record.get("context") or {}
    for field in SOURCE_FIELDS:
        if context.get(field) is not None:
            value = context[field]
            return field + "=" + (value if isinstance(value, str) else json.dumps(value))
    return None


def scored_repeats(path):
    """id -> (domain/subtask, [verdicts of its scored repeats]) of an export."""
    out = {}
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        key, vs = out.setdefault(r["id"], (r["domain"] + "/" + r["subtask"], []))
        v = r.get("verdict")
        if r["status"] == "answered" and v is not None and "pass" in v:
            vs.append(1 if v["pass"] else 0)
    return out


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


def compare(path_a, path_b, k_max):
    a, b = scored_repeats(path_a), scored_repeats(path_b)
    shared = [i for i in a if i in b]
    subtasks = {}
    for i in shared:
        key, va = a[i]
        vb = b[i][1]
        if len(va) != k_max or len(vb) != k_max:
            continue
        t = subtasks.setdefault(key, {"samples": 0, "n": 0, "passed_a": 0, "passed_b": 0,
                                      "pass_to_fail": 0, "fail_to_pass": 0, "flips": {}})
        t["samples"] += 1
        t["n"] += k_max
        t["passed_a"] += sum(va)
        t["passed_b"] += sum(vb)
        if sum(va) != sum(vb):
            flip = "pass_to_fail" if sum(va) > sum(vb) else "fail_to_pass"
            t[flip] += 1
            t["flips"][i] = flip
    for t in subtasks.values():
        t["a"] = 100 * t["passed_a"] / t["n"]
        t["b"] = 100 * t["passed_b"] / t["n"]
        t["mcnemar_p"] = mcnemar(t["pass_to_fail"], t["fail_to_pass"])
    paired = sum(t["samples"] for t in subtasks.values())
    json.dump({"shared": len(shared), "paired": paired, "subtasks": subtasks}, sys.stdout,
              sort_keys=True)


def main():
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    path, k_max = sys.argv[1], int(sys.argv[2])
    # subtask -> sample id -> [verdicts of its scored repeats]
    verdicts = collections.defaultdict(lambda: collections.defaultdict(list))
    items = {}  # sample id -> its cluster
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        key = r["domain"] + "/" + r["subtask"]
        sample = verdicts[key][r["id"]]  # made even when nothing is scored
        items[r["id"]] = source_item(r) or "sample " + r["id"]
        v = r.get("verdict")
        if r["status"] == "answered" and v is not None and "pass" in v:
            sample.append(1 if v["pass"] else 0)
    out = {}
    for key, samples in verdicts.items():
        units = [x for vs in samples.values() for x in vs]
        n, passed = len(units), sum(units)
        figures = {"scored": n, "passed": passed}
        if n:
            clusters = collections.defaultdict(list)
            for sample_id, vs in samples.items():
                if vs:
                    clusters[items[sample_id]].extend(vs)
            c = len(clusters)
            size = Fraction(n, c)
            p = (passed + size) / (n + 2 * size)
            total = (size - size * p) ** 2 + (size * p) ** 2
            for vs in clusters.values():
                total += (sum(vs) - len(vs) * p) ** 2
            deff = max(1.0, float(total / ((n + 2 * size) * p * (1 - p)) * (c + 2) / (c + 1)))
            low, high = wilson_cc_by_bisection(passed / deff, n / deff)
            figures.update(accuracy=100 * passed / n, low=100 * low, high=100 * high, deff=deff)
        complete = [vs for vs in samples.values() if len(vs) == k_max]
        figures["samples"] = len(complete)
        figures["incomplete"] = len(samples) - len(complete)
        if complete:
            figures["consistency"] = 100 * sum(1 for vs in complete if len(set(vs)) == 1) / len(complete)
            at, hat = [], []
            for k in range(1, k_max + 1):
                some = sum(Fraction(math.comb(k_max, k) - math.comb(k_max - sum(vs), k),
                                    math.comb(k_max, k)) for vs in complete)
                every = sum(Fraction(math.comb(sum(vs), k), math.comb(k_max, k)) for vs in complete)
                at.append(float(100 * some / len(complete)))
                hat.append(float(100 * every / len(complete)))
            figures["pass_at_k"], figures["pass_hat_k"] = at, hat
        out[key] = figures
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
