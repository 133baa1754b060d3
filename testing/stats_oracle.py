#!/usr/bin/env python3
"""The test oracle of src/report/stats.h, in python3 with the standard library only.

  python3 testing/stats_oracle.py            rewrites src/report/testdata/stats_oracle.json
  python3 testing/stats_oracle.py mcnemar B C   prints McNemar's exact p for B and C
  python3 testing/stats_oracle.py holm P...     prints Holm's adjusted p-values

The closed forms are computed another way than in C++, where there is one: Wilson's
interval, with and without continuity correction, by solving the score test's
inequality by bisection; an aggregate's weights from the paper's definition written
out (1 / subtasks of its domain split, / 4 domains, / 2 splits) rather than from the
aggregates' code; the clustered moments of paired verdicts from the clusters' unit
lists, the pseudo-units added as weighted units; McNemar's p with exact integers
(math.comb), Pearson's r with statistics.correlation, the design effect from the
units one by one. Spearman's bootstrap cannot be computed another way and give the same
numbers, so it is the documented algorithm (stats.h) done again: the project's Rng
(xoshiro256** seeded by SplitMix64, core/rng.cc), the same draws in the same order and
numpy's default percentile. The unit test compares its figures with these.
"""

import csv
import json
import math
import os
import statistics
import sys
from fractions import Fraction

MASK = (1 << 64) - 1
Z95 = 1.959963984540054
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def fnv1a(text):
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h ^= byte
        h = (h * 0x100000001B3) & MASK
    return h


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


class Rng:
    """core/rng.cc: xoshiro256** seeded through SplitMix64."""

    def __init__(self, seed):
        x = seed & MASK
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & MASK
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            self.s.append(z ^ (z >> 31))

    def fork(self, name):
        copy = Rng(0)
        copy.s = list(self.s)
        return Rng(copy.next() ^ fnv1a(name))

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def uniform_int(self, lo, hi):
        n = hi - lo + 1
        limit = MASK - (MASK % n)
        while True:
            x = self.next()
            if x < limit:
                return lo + x % n


# --- closed forms, computed independently -------------------------------------------

def wilson_by_bisection(k, n, z=Z95):
    """The p whose score test just accepts k/n: (k/n - p)^2 = z^2 p (1 - p) / n."""
    phat = k / n

    def accepted(p):
        return (phat - p) ** 2 <= z * z * p * (1 - p) / n

    def edge(inside, outside):
        for _ in range(200):
            mid = (inside + outside) / 2
            if accepted(mid):
                inside = mid
            else:
                outside = mid
        return inside

    low = 0.0 if accepted(0.0) else edge(phat, 0.0)
    high = 1.0 if accepted(1.0) else edge(phat, 1.0)
    return low, high


def wilson_cc_by_bisection(k, n, z=Z95):
    """The p with |k/n - p| - 1/(2n) <= z sqrt(p (1 - p) / n) (Newcombe's method 4)."""
    phat = k / n

    def accepted(p):
        gap = max(abs(phat - p) - 0.5 / n, 0.0)
        return gap * gap <= z * z * p * (1 - p) / n

    def edge(inside, outside):
        for _ in range(200):
            mid = (inside + outside) / 2
            if accepted(mid):
                inside = mid
            else:
                outside = mid
        return inside

    low = 0.0 if accepted(0.0) else edge(phat, 0.0)
    high = 1.0 if accepted(1.0) else edge(phat, 1.0)
    return low, high


def design_effect(clusters, repeated=False):
    """clusters: lists of 0/1 unit outcomes. At p = 0 or 1 (clusters larger than one),
    and at every p in a stratum of repeated samples (`repeated`: run --repeats, a
    cluster a sample's repeats within its source item's), the ratio with an all-pass and
    an all-fail pseudo-cluster of the mean size added, times (C + 2) / (C + 1), as for
    repeats (repeats_oracle.py)."""
    units = [x for c in clusters for x in c]
    n = len(units)
    p = sum(units) / n
    if all(len(c) == 1 for c in clusters) and not repeated:
        return 1.0
    if p in (0.0, 1.0) or repeated:
        c = len(clusters)
        size = Fraction(n, c)
        q = (sum(units) + size) / (n + 2 * size)
        total = (size - size * q) ** 2 + (size * q) ** 2
        for cl in clusters:
            total += (sum(cl) - len(cl) * q) ** 2
        return max(1.0, float(total / ((n + 2 * size) * q * (1 - q)) * (c + 2) / (c + 1)))
    var_clustered = sum(sum(x - p for x in c) ** 2 for c in clusters) / n ** 2
    var_independent = p * (1 - p) / n
    return max(1.0, var_clustered / var_independent)


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


def holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * p[i]))
        out[i] = running
    return out


def average_ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    ranks = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for t in range(i, j + 1):
            ranks[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def fisher(r, n, z=Z95):
    if n < 4 or abs(r) == 1:
        return None
    f = math.atanh(r)
    se = 1 / math.sqrt(n - 3)
    return [math.tanh(f - z * se), math.tanh(f + z * se)]


# --- Spearman's bootstrap, as documented in stats.h --------------------------------

def percentile(values, confidence):
    v = sorted(values)
    tail = (1 - confidence) / 2

    def at(q):
        h = (len(v) - 1) * q
        lo = math.floor(h)
        hi = min(lo + 1, len(v) - 1)
        return v[lo] + (h - lo) * (v[hi] - v[lo])

    return [at(tail), at(1 - tail)]


def containing(interval, estimate):
    return [min(interval[0], estimate), max(interval[1], estimate)]


def pearson_plain(x, y):
    """Pearson's r as stats.cc adds it up (for the bootstrap replicates)."""
    n = len(x)
    mx = 0.0
    my = 0.0
    for i in range(n):
        mx += x[i]
        my += y[i]
    mx /= n
    my /= n
    sxy = sxx = syy = 0.0
    for i in range(n):
        sxy += (x[i] - mx) * (y[i] - my)
        sxx += (x[i] - mx) * (x[i] - mx)
        syy += (y[i] - my) * (y[i] - my)
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def spearman_bootstrap(x, y, stream, replicates, seed, confidence=0.95):
    rho = pearson_plain(average_ranks(x), average_ranks(y))
    rng = Rng(seed).fork(stream)
    n = len(x)
    values = []
    for _ in range(replicates):
        idx = [rng.uniform_int(0, n - 1) for _ in range(n)]
        rx = [x[j] for j in idx]
        ry = [y[j] for j in idx]
        if len(set(rx)) == 1 or len(set(ry)) == 1:
            continue
        values.append(pearson_plain(average_ranks(rx), average_ranks(ry)))
    return containing(percentile(values, confidence), rho), len(values)


PAPER_DOMAINS = ["summarization", "code", "html", "math"]


def weights(strata):
    """name -> per-stratum weight in the paper's aggregates, written out: a domain
    split is the mean of its subtasks, overall the mean of the four domains, All the
    mean of overall Easy and Hard. Present aggregates only."""
    members = {}
    for i, s in enumerate(strata):
        if s["split"] is not None and s["domain"] in PAPER_DOMAINS:
            members.setdefault((s["domain"], s["split"]), []).append(i)
    out = {}
    for (d, split), idx in members.items():
        out[split + ":" + d] = {i: 1 / len(idx) for i in idx}
    for split in ("easy", "hard"):
        if all((d, split) in members for d in PAPER_DOMAINS):
            out["overall_" + split] = {i: w / 4 for d in PAPER_DOMAINS
                                       for i, w in out[split + ":" + d].items()}
    if "overall_easy" in out and "overall_hard" in out:
        out["all"] = {i: w / 2 for split in ("easy", "hard")
                      for i, w in out["overall_" + split].items()}
    return out


def unit_clusters(s, which):
    """A stratum's clusters as lists of 0/1 outcomes of run `which` (1: A, 2: B), the
    passes first (the order does not matter to any statistic here)."""
    return [[1] * k[which] + [0] * (k[0] - k[which]) for k in s["kinds"] for _ in range(k[3])]


def units(s):
    return sum(k[0] * k[3] for k in s["kinds"])


def passed(s, which):
    return sum(k[which] * k[3] for k in s["kinds"])


def run_interval(strata, w, which):
    """An aggregate's (or, with one weight of 1, a subtask's) interval in percent: the
    continuity-corrected Wilson interval on n_eff = 1 / sum w^2 deff / n."""
    est = sum(wi * passed(strata[i], which) / units(strata[i]) for i, wi in w.items())
    inv = sum(wi * wi * design_effect(unit_clusters(strata[i], which),
                                      strata[i].get("repeated", False)) / units(strata[i])
              for i, wi in w.items())
    n_eff = 1 / inv
    lo, hi = wilson_cc_by_bisection(min(max(est, 0.0), 1.0) * n_eff, n_eff)
    return est, lo, hi


def moments(s, smoothed):
    """(var A, var B, cov) of a stratum's two proportions from its clusters: weighted
    lists of (units, passes A, passes B), the pseudo-units as four half-weight units;
    unsmoothed, a positive cross-product sum less 1/2 (Newcombe's correction)."""
    clusters = [(k[0], k[1], k[2], float(k[3])) for k in s["kinds"]]
    if smoothed:
        clusters += [(1, a, b, 0.5) for a in (0, 1) for b in (0, 1)]
    m = sum(u * c for u, _, _, c in clusters)
    pa = sum(a * c for _, a, _, c in clusters) / m
    pb = sum(b * c for _, _, b, c in clusters) / m
    va = sum(c * (a - u * pa) ** 2 for u, a, _, c in clusters) / m ** 2
    vb = sum(c * (b - u * pb) ** 2 for u, _, b, c in clusters) / m ** 2
    cross = sum(c * (a - u * pa) * (b - u * pb) for u, a, b, c in clusters)
    if not smoothed and cross > 0:
        cross = max(0.0, cross - 0.5)
    return va, vb, cross / m ** 2


def correlation(strata, w):
    r = 1.0
    for smoothed in (False, True):
        va = vb = cv = 0.0
        for i, wi in w.items():
            a, b, c = moments(strata[i], smoothed)
            va += wi * wi * a
            vb += wi * wi * b
            cv += wi * wi * c
        r = min(r, cv / math.sqrt(va * vb) if va * vb > 0 else 0.0)
    return max(-1.0, min(1.0, r))


def mover(strata, w):
    """B - A in percentage points (Newcombe's method 10 / MOVER)."""
    a, la, ua = run_interval(strata, w, 1)
    b, lb, ub = run_interval(strata, w, 2)
    r = correlation(strata, w)
    d = b - a
    low = d - math.sqrt(max(0.0, (b - lb) ** 2 + (ua - a) ** 2 - 2 * r * (b - lb) * (ua - a)))
    high = d + math.sqrt(max(0.0, (ub - b) ** 2 + (a - la) ** 2 - 2 * r * (ub - b) * (a - la)))
    return [100 * max(-1.0, low), 100 * min(1.0, high)]


# --- the cases -----------------------------------------------------------------------

def strata_cases():
    """Every paper domain, both splits, one clustered subtask (math questions asked
    three times) and one subtask that enters no aggregate; then a run that is partial,
    at 0% and 100% with few units; then a run of repeated samples (run --repeats 3).
    kinds: [units, pass_a, pass_b, count]."""
    def s(domain, subtask, split, kinds):
        return {"domain": domain, "subtask": subtask, "split": split, "kinds": kinds}
    return [[
        s("code", "add_print_statements", "easy", [[1, 1, 1, 20], [1, 0, 1, 5], [1, 1, 0, 3], [1, 0, 0, 4]]),
        s("code", "simulate_execute", "easy", [[1, 1, 1, 6], [1, 0, 0, 6], [1, 1, 0, 2]]),
        s("code", "add_print_statements_v2", "hard", [[1, 0, 0, 20], [1, 1, 1, 3], [1, 0, 1, 7]]),
        s("html", "html_easy", "easy", [[1, 1, 1, 25], [1, 0, 0, 5]]),
        s("html", "html_hard", "hard", [[1, 1, 0, 9], [1, 0, 0, 21]]),
        s("math", "math_easy", "easy", [[3, 3, 3, 8], [3, 0, 1, 4], [3, 2, 2, 3], [3, 1, 3, 2]]),
        s("math", "math_hard", "hard", [[1, 1, 1, 11], [1, 0, 0, 14], [1, 0, 1, 5]]),
        s("summarization", "bullet_points", "easy", [[1, 1, 1, 30], [1, 0, 0, 10]]),
        s("summarization", "length", "hard", [[1, 1, 0, 12], [1, 0, 0, 18], [1, 0, 1, 2]]),
        s("other", "mystery", None, [[1, 1, 1, 2]]),
    ], [
        s("summarization", "questions", "easy", [[1, 1, 1, 1]]),
        s("summarization", "indented_bullet_points", "hard", [[2, 2, 0, 1], [2, 0, 0, 2]]),
        s("code", "simulate_execute_v2", "hard", [[1, 0, 0, 3]]),
        s("html", "html_easy", "easy", [[1, 1, 1, 10]]),
        s("html", "html_hard", "hard", [[1, 0, 1, 1]]),
        s("math", "math_easy", "easy", [[4, 4, 4, 2], [4, 0, 4, 1]]),
        s("math", "math_hard", "hard", [[1, 1, 0, 2], [1, 0, 1, 2], [1, 1, 1, 1]]),
        s("code", "replace_variables", "easy", [[1, 1, 0, 3], [1, 0, 0, 1]]),
    ], [
        # Runs of repeated samples (run --repeats 3): a cluster is a sample's three
        # repeats (or a math question's samples' repeats, or a task's); the interval
        # takes the pseudo-clusters at every p, the repeats agreeing or not.
        dict(s("math", "math_easy", "easy", [[3, 3, 3, 8], [3, 0, 1, 4], [3, 2, 2, 3], [3, 1, 3, 2],
                                             [6, 4, 5, 1]]), repeated=True),
        dict(s("math", "math_hard", "hard", [[3, 3, 0, 2], [3, 0, 0, 5], [3, 1, 2, 4]]), repeated=True),
        dict(s("code", "simulate_execute", "easy", [[3, 3, 3, 4], [3, 0, 3, 1], [2, 1, 1, 2]]),
             repeated=True),
        dict(s("html", "html_easy", "easy", [[3, 3, 3, 9]]), repeated=True),
        dict(s("html", "html_hard", "hard", [[3, 2, 1, 6], [3, 1, 2, 3]]), repeated=True),
    ]]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "mcnemar":
        print(repr(mcnemar(int(sys.argv[2]), int(sys.argv[3]))))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "holm":
        print(" ".join(repr(p) for p in holm([float(a) for a in sys.argv[2:]])))
        return

    out = {"generated_by": "testing/stats_oracle.py"}
    out["wilson"] = []
    for k, n in [(0, 1), (1, 1), (0, 10), (10, 10), (3, 10), (7, 12), (50, 100), (1, 1319),
                 (1200, 1319), (0.5, 2.5), (0.3, 1.7), (1, 3)]:
        lo, hi = wilson_by_bisection(k, n)
        clo, chi = wilson_cc_by_bisection(k, n)
        out["wilson"].append({"k": k, "n": n, "low": lo, "high": hi, "cc_low": clo,
                              "cc_high": chi})

    # Subtask intervals: clusters of units, as the design effect sees them.
    out["design_effect"] = []
    for clusters in [
        [[1], [0], [1], [1]],
        [[1, 1, 1], [0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]],
        [[1, 1], [0, 0], [1, 1], [0, 0], [1, 0]],
        [[1, 1, 1, 1]] * 5 + [[0, 0, 0, 0]] * 5,
        [[1, 0], [0, 1], [1, 0], [0, 1]],  # negatively correlated: clamped at 1
        # all alike: the width of about as many samples as clusters (10 questions of
        # 1,319 samples), not of every sample; one sample a cluster: independent
        [[1] * 132] * 9 + [[1] * 131],
        [[0, 0, 0]] * 4,
        [[1]] * 7,
    ]:
        deff = design_effect(clusters)
        n = sum(len(c) for c in clusters)
        k = sum(sum(c) for c in clusters)
        lo, hi = wilson_cc_by_bisection(k / deff, n / deff)
        kinds = {}
        for c in clusters:
            kinds[(len(c), sum(c))] = kinds.get((len(c), sum(c)), 0) + 1
        out["design_effect"].append({
            "kinds": [[u, p, 0, count] for (u, p), count in sorted(kinds.items())],
            "design_effect": deff, "low": 100 * lo, "high": 100 * hi})
    # A sample's repeats (run --repeats): the pseudo-clusters at every p, where repeats
    # that agree make the interval as wide as about one unit a cluster.
    for clusters in [
        [[1, 1, 1], [0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]],
        [[1, 1, 1]] * 6 + [[0, 0, 0]] * 4,
        [[1, 0, 1], [0, 1, 1], [1, 1, 0], [1, 0, 0]] * 3,
        [[1, 1, 1, 1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]],
        [[1, 1]] * 5,
    ]:
        deff = design_effect(clusters, repeated=True)
        n = sum(len(c) for c in clusters)
        k = sum(sum(c) for c in clusters)
        lo, hi = wilson_cc_by_bisection(k / deff, n / deff)
        kinds = {}
        for c in clusters:
            kinds[(len(c), sum(c))] = kinds.get((len(c), sum(c)), 0) + 1
        out["design_effect"].append({
            "kinds": [[u, p, 0, count] for (u, p), count in sorted(kinds.items())],
            "repeated": True, "design_effect": deff, "low": 100 * lo, "high": 100 * hi})

    out["mcnemar"] = [{"a_only": b, "b_only": c, "p": mcnemar(b, c)}
                      for b, c in [(0, 0), (0, 1), (1, 0), (3, 3), (0, 10), (2, 9), (9, 2),
                                   (25, 40), (100, 140), (700, 760), (0, 1319), (500, 2000)]]
    holm_in = [0.01, 0.04, 0.03, 0.005, 0.5, 0.04, 1.0, 0.0]
    out["holm"] = {"p": holm_in, "adjusted": holm(holm_in)}

    # Pearson and Spearman, with ties and the degenerate cases.
    out["correlation"] = []
    for x, y in [([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]),
                 ([1, 2, 3], [3, 2, 1]),
                 ([1, 2, 2, 3, 4, 4, 4, 7], [10, 9, 9, 7, 8, 3, 5, 1]),
                 ([0.5, 1.5, 2.5, 3.5], [1, 2, 3, 4])]:
        r = statistics.correlation(x, y)
        rho = statistics.correlation(average_ranks(x), average_ranks(y))
        out["correlation"].append({"x": x, "y": y, "pearson": r, "pearson_ci": fisher(r, len(x)),
                                   "spearman": rho,
                                   "spearman_has_ci": len(x) >= 5 and abs(rho) != 1})

    # Table 4: the paper's figures, every pair of columns.
    with open(os.path.join(ROOT, "data", "paper", "table4_correlation.csv")) as f:
        rows = list(csv.DictReader(f))
    columns = [c for c in rows[0] if c != "model"]
    out["table4"] = []
    for i, a in enumerate(columns):
        for b in columns[i + 1:]:
            x = [float(r[a]) for r in rows]
            y = [float(r[b]) for r in rows]
            r = statistics.correlation(x, y)
            rho = statistics.correlation(average_ranks(x), average_ranks(y))
            ci, used = spearman_bootstrap(x, y, a + "/" + b, 2000, 12)
            out["table4"].append({"x": a, "y": b, "n": len(x), "pearson": r,
                                  "pearson_ci": fisher(r, len(x)), "spearman": rho,
                                  "spearman_ci": ci, "spearman_replicates_used": used})

    # Aggregates of both runs and their paired differences, on strata of every kind:
    # clustered, at 0% and 100%, of one unit.
    out["intervals"] = []
    for strata in strata_cases():
        case = {"strata": strata, "a": {}, "b": {}, "difference": {}, "strata_difference": []}
        for name, w in weights(strata).items():
            case["a"][name] = list(run_interval(strata, w, 1)[1:])
            case["a"][name] = [100 * x for x in case["a"][name]]
            case["b"][name] = [100 * x for x in run_interval(strata, w, 2)[1:]]
            case["difference"][name] = mover(strata, w)
        for i, s in enumerate(strata):
            case["strata_difference"].append(mover(strata, {i: 1.0}) if units(s) else None)
        out["intervals"].append(case)

    path = os.path.join(ROOT, "src", "report", "testdata", "stats_oracle.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
