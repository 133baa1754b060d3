#!/usr/bin/env python3
# A stand-in for the StructTest reference scorer (Python) doing its end-to-end work, so a
# benchmark can set structtest's `score` throughput beside "the Python reference doing the
# same work": for every JSONL record, json.loads it, run the paper-rule evaluator of its
# subtask, json.dumps a verdict line {"id", "domain", "subtask", "pass", "reason"}.
#
# It was written from shared/docs/RULES.md (paper rules) and checked against the recorded
# verdicts of shared/conformance/dev; it is NOT the reference's code. It uses what the
# reference uses: NLTK's Punkt (English punkt_tab) for sentences, html.parser.HTMLParser
# for HTML, `re` and `json` for math. Non-code subtasks only: the seven summarization
# ones, html_easy/html_hard, math_easy/math_hard.
#
# usage:
#   reference_score.py INPUT.jsonl OUTPUT.jsonl   score; prints load_seconds= and then
#                                                 records=N seconds=S rate=R (the loop only)
#   reference_score.py --json-only IN OUT         same loop with a constant verdict
#                                                 (json.loads + json.dumps: a lower bound)
#   reference_score.py --check [DIR]              agreement with reference.result per
#                                                 subtask (default shared/conformance/dev)
#   --nltk-data DIR                               punkt_tab folder root (default
#                                                 shared/nltk_data, or $NLTK_DATA)
#
# Needs Debian's python3-nltk (3.8, which has no punkt_tab loader of its own, so the model
# is loaded from its four files the way shared/tools/punkt_oracle.py does). When the
# python3 that runs this has no nltk (a pyenv one, say), it re-runs itself under
# /usr/bin/python3, before anything is timed.
import glob
import json
import os
import re
import sys
import time
from collections import defaultdict
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("STRUCTTEST_SHARED", os.path.join(HERE, "..", "..", "shared"))

try:
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("reference_score.py: error: nltk is not installed (apt-get install python3-nltk)")


# ---- Punkt ---------------------------------------------------------------------------

def load_punkt(nltk_data):
    d = os.path.join(nltk_data, "tokenizers", "punkt_tab", "english")

    def lines(name):
        with open(os.path.join(d, name), encoding="utf-8") as f:
            return [x[:-1] if x.endswith("\n") else x for x in f]

    p = PunktParameters()
    p.abbrev_types = set(lines("abbrev_types.txt"))
    p.collocations = set(tuple(x.split("\t")) for x in lines("collocations.tab"))
    p.sent_starters = set(lines("sent_starters.txt"))
    p.ortho_context = defaultdict(int, {a: int(b) for a, b in (x.split("\t") for x in lines("ortho_context.tab"))})
    return PunktSentenceTokenizer(p)


sent_tokenize = None  # set by main(): PunktSentenceTokenizer.tokenize


def count_sentences(text):
    return len([s for s in sent_tokenize(text) if s.strip()])


# ---- summarization -------------------------------------------------------------------

def isolate_summary(text, start, end):
    a, b = text.find(start), text.rfind(end)
    if a != -1 and b != -1 and b > a:
        text = text[a + len(start):b]
    text = text.replace(start, " ").replace(end, " ")
    text = re.sub(" +", " ", text).strip()
    text = re.sub("\n+", "\n", text.strip())
    return "\n".join(line for line in text.split("\n") if line)


def eval_length(text, p):
    n = len(sent_tokenize(re.sub(r"\b\d\. ", "", text)))
    return n == p["n_sentences"], f"expected {p['n_sentences']} sentences, found {n}"


def eval_bullet_points(text, p):
    n = text.count(p["symbol"])
    return n == p["n_points"], f"expected {p['n_points']} '{p['symbol']}', found {n}"


SEPARATORS = "-./)]"


def walk_numbered(lines, on_point=None):
    """The numbered-list walk. Returns (points, None) or (None, why it failed)."""
    i = 0
    while i < len(lines) and not lines[i][:1].isnumeric():
        i += 1
    prev = 0
    while i < len(lines) and len(lines[i]) >= 2 and lines[i][0].isnumeric():
        line = lines[i]
        try:
            if line[1] in SEPARATORS:
                num, rest = int(line[0]), line[2:]
            elif len(line) >= 3 and line[1].isnumeric() and line[2] in SEPARATORS:
                num, rest = int(line[:2]), line[3:]
            else:
                return None, f"line {line[:40]!r} has no number prefix"
        except ValueError:  # numeric but not a decimal digit ('²', '½')
            return None, f"line {line[:40]!r} starts with a non-decimal numeric"
        if num != prev + 1:
            return None, f"point {num} follows point {prev}"
        prev = num
        if on_point is not None:
            why = on_point(num, rest)
            if why:
                return None, why
        i += 1
    return prev, None


def eval_numbered_points(text, p):
    found, why = walk_numbered(text.split("\n"))
    if why:
        return False, why
    return found == p["n_points"], f"expected {p['n_points']} numbered points, found {found}"


QUESTIONS = ["What is the main point?", "Why is it happening?", "Who is involved?",
             "When is the action happening?", "Where is the action happening?"]
QUESTION_PREFIXES = [f"[{q}]".lower() for q in QUESTIONS]


def eval_questions(text, p):
    lines = [line.lower() for line in text.split("\n")]
    missing = [q for q in QUESTION_PREFIXES if not any(line.startswith(q) for line in lines)]
    return not missing, "missing: " + ", ".join(missing) if missing else "all five questions"


class PointCounter:
    """The per-point sentence rule shared by bullet_points_length and
    numbered_points_length: each point has exactly per_point sentences and the running
    total stays within n_sentences_total."""

    def __init__(self, p):
        self.per_point, self.limit, self.total = p["n_sentences_per_point"], p["n_sentences_total"], 0

    def __call__(self, num, content):
        n = count_sentences(content.strip())
        if n != self.per_point:
            return f"point {num} has {n} sentences, expected {self.per_point}"
        self.total += n
        if self.total > self.limit:
            return f"{self.total} sentences after point {num}, more than {self.limit}"
        return None


def points_and_total(p, points, total):
    ok = points == p["n_points"] and total == p["n_sentences_total"]
    return ok, f"{points} points (expected {p['n_points']}), {total} sentences (expected {p['n_sentences_total']})"


def stripped_lines(text):
    return [s for s in (line.strip() for line in text.split("\n")) if s]


def eval_bullet_points_length(text, p):
    sym, lines, counter = p["symbol"], stripped_lines(text), PointCounter(p)
    i = 0
    while i < len(lines) and not lines[i].startswith(sym):
        i += 1
    points = 0
    while i < len(lines) and lines[i].startswith(sym):
        points += 1
        why = counter(points, lines[i][len(sym):])
        if why:
            return False, why
        i += 1
    return points_and_total(p, points, counter.total)


def eval_numbered_points_length(text, p):
    counter = PointCounter(p)
    points, why = walk_numbered(stripped_lines(text), counter)
    if why:
        return False, why
    return points_and_total(p, points, counter.total)


def eval_indented_bullet_points(text, p):
    sym, n, n_sub = p["symbol"], p["n_points"], p["n_subpoints"]
    lines = [line for line in text.split("\n") if line.strip()]
    i = 0
    while i < len(lines) and not lines[i].startswith(sym):
        i += 1
    points = 0
    while i < len(lines) - 1 and lines[i].startswith(sym):
        points += 1
        j = i + 1
        while j < len(lines) and lines[j][:1] in (" ", "\t") and lines[j].lstrip(" \t").startswith(sym):
            j += 1
        if j - i - 1 != n_sub:
            return False, f"point {points} has {j - i - 1} sub-points, expected {n_sub}"
        if j == len(lines):
            break
        i = j
    return points == n, f"expected {n} points, found {points}"


SUMMARIZATION = {
    "length": eval_length,
    "bullet_points": eval_bullet_points,
    "numbered_points": eval_numbered_points,
    "questions": eval_questions,
    "bullet_points_length": eval_bullet_points_length,
    "numbered_points_length": eval_numbered_points_length,
    "indented_bullet_points": eval_indented_bullet_points,
}


def score_summarization(rec):
    ctx = rec.get("context") or {}
    text = isolate_summary(rec["response"], ctx.get("start_tag", "<summary>"), ctx.get("end_tag", "</summary>"))
    return SUMMARIZATION[rec["subtask"]](text, rec["params"])


# ---- html ----------------------------------------------------------------------------

def isolate_html(text, start, end):
    if "<think>" in text and "</think>" in text:
        # The reference skips len(start_tag) characters after "<think>", not len("<think>").
        a = text.find("<think>") + len(start)
        b = text.find("</think>")
        if a < b:
            text = text.replace(text[a:b], "")
    a, b = text.find(start), text.find(end)
    if a == -1 or b == -1:
        return None
    text = re.sub("\n+", "\n", text[a + len(start):b].strip())
    return "\n".join(line for line in text.split("\n") if line.strip())


class TagEvents(HTMLParser):
    """Per lower-cased tag name: [opened, closed, open now, ends seen with none open].
    `<x/>` arrives as a start and an end (HTMLParser's handle_startendtag)."""

    def __init__(self):
        super().__init__()
        self.tags = {}

    def handle_starttag(self, tag, attrs):
        t = self.tags.setdefault(tag, [0, 0, 0, 0])
        t[0] += 1
        t[2] += 1

    def handle_endtag(self, tag):
        t = self.tags.setdefault(tag, [0, 0, 0, 0])
        t[1] += 1
        if t[2] == 0:
            t[3] += 1
        else:
            t[2] -= 1


def score_html(rec):
    ctx, gt = rec.get("context") or {}, rec["params"]["ground_truth"]
    start, end = ctx.get("start_tag", "<html>"), ctx.get("end_tag", "</html>")
    answer = isolate_html(rec["response"], start, end)
    if answer is None:
        return False, f"no {start} ... {end} in the response"
    parser = TagEvents()
    try:
        parser.feed(answer)  # no close(): an unfinished construct at the end is dropped
    except Exception as e:  # the reference's parser raising counts as a failure
        return False, f"HTMLParser raised {type(e).__name__}"
    if not parser.tags:
        return False, "no start or end tag in the answer"
    for name, (opened, closed, open_now, stray) in parser.tags.items():
        if name not in gt:
            return False, f"<{name[:40]}> is not an expected tag"
        if stray or opened != closed:
            return False, f"<{name}> unbalanced: opened {opened}, closed {closed}"
        if closed != gt[name]:
            return False, f"expected {gt[name]} <{name}>, found {closed}"
    return True, "balanced, counts as expected"


# ---- math ----------------------------------------------------------------------------

# (phrase, kind): "text" = after the phrase, stripped, one trailing '.' dropped;
# "boxed" = up to the first '}'; "dollar" = Result: $...$; "tagged" = <result>...</result>.
EASY_PHRASES = [("The answer is:", "text"), ("###", "text"), ("The final answer is", "text"),
                ("Result:", "text"), ("\\boxed{", "boxed"), ("Result: $", "dollar"),
                ("<result>", "tagged")]
HARD_PHRASES = [("The answer is:", "text"), ("####", "text"), ("Final result:", "text"),
                ("\\boxed{", "boxed")]
STEP_STYLES = [  # (pattern on the stripped chunk, prefix step n must start with)
    (re.compile(r"^### \d+"), lambda n: f"### {n}"),
    (re.compile(r"^\d+\.\s"), lambda n: f"{n}. "),
    (re.compile(r"^\*\*Step \d+\*\*\s+"), lambda n: f"**Step {n}**"),
    "json_list", "json_object",
]
EASY_FORMAT = re.compile(r"Suffix(\d+)PhrasesMathFormat$")
HARD_FORMAT = re.compile(r"BulletPoints(\d+)MathFormat$")


def extract_answer(response, phrase, kind):
    at = response.rfind(phrase)
    if at == -1:
        return None
    t = response[at + len(phrase):].strip()
    if kind == "text":
        return t[:-1] if t.endswith(".") else t
    if kind == "boxed":
        close = t.find("}")
        return t[:close] if close != -1 else ""
    if kind == "dollar":
        if t.startswith("$"):
            close = t.find("$$", 1)
            return t[1:close] if close != -1 else None
        return None if "$$" in t else t.split("$", 1)[0].strip()
    return t.split("</result>", 1)[0].strip()  # tagged


def count_steps(response, style):
    """Number of steps, or None when the steps are broken (format and accuracy fail)."""
    if style in ("json_list", "json_object"):
        a = response.find("```json")
        if a == -1:
            return None
        b = response.find("```", a + 7)
        if b == -1:
            return None
        try:
            data = json.loads(response[a + 7:b])
            if style == "json_list":
                ok = isinstance(data, list) and all(isinstance(x, str) for x in data)
            else:
                ok = (isinstance(data, dict) and [int(k) for k in data] == list(range(1, len(data) + 1))
                      and all(isinstance(v, str) for v in data.values()))
        except Exception:  # not JSON to Python, or a key int() rejects
            return None
        return len(data) if ok else None
    pattern, prefix = style
    count = 0
    for chunk in response.split("\n\n"):
        chunk = chunk.strip()
        if pattern.match(chunk):
            if not chunk.startswith(prefix(count + 1)):
                return None
            count += 1
    return count


def score_math(rec):
    name, gold, response = rec["params"]["math_format_name"], rec["context"]["gold_answer"], rec["response"]
    m = EASY_FORMAT.match(name)
    if m:
        phrase, kind = EASY_PHRASES[int(m.group(1)) - 1]
        last = response.strip().split("\n")[-1]
        if kind == "dollar":
            fmt = last.startswith(phrase) and (last.endswith("$") or last.endswith("$."))
        else:
            fmt = phrase in last
        why = f"format: last line {'has' if fmt else 'lacks'} {phrase!r}"
    else:
        k = int(HARD_FORMAT.match(name).group(1)) - 1
        phrase, kind = HARD_PHRASES[k % 4]
        steps = count_steps(response, STEP_STYLES[k // 4])
        if steps is None:
            return False, "format and accuracy: steps missing or out of sequence"
        fmt = 3 <= steps <= 10
        why = f"format: {steps} steps"
    answer = extract_answer(response, phrase, kind)
    acc = answer is not None and answer == gold
    return fmt and acc, f"{why}; answer {answer!r:.60} {'==' if acc else '!='} gold {gold!r}"


# ---- driver --------------------------------------------------------------------------

def score(rec):
    domain = rec["domain"]
    if domain == "summarization":
        return score_summarization(rec)
    if domain == "html":
        return score_html(rec)
    if domain == "math":
        return score_math(rec)
    raise ValueError(f"{rec['id']}: unsupported subtask {rec['subtask']!r}")


def verdict_line(rec, ok, reason):
    return json.dumps({"id": rec["id"], "domain": rec["domain"], "subtask": rec["subtask"],
                       "pass": bool(ok), "reason": reason}) + "\n"


def run(inp, out, json_only):
    n = 0
    t0 = time.perf_counter()
    with open(inp, encoding="utf-8") as fin, open(out, "w", encoding="utf-8") as fout:
        for line in fin:
            if not line.strip():
                continue
            rec = json.loads(line)
            ok, reason = (False, "json-only") if json_only else score(rec)
            fout.write(verdict_line(rec, ok, reason))
            n += 1
    s = time.perf_counter() - t0
    print(f"records={n} seconds={s:.3f} rate={n / s if s else 0:.0f}")


SUBTASKS = list(SUMMARIZATION) + ["html_easy", "html_hard", "math_easy", "math_hard"]


def check(directory):
    bad = 0
    for sub in SUBTASKS:
        agree, total, wrong = 0, 0, []
        for path in sorted(glob.glob(os.path.join(directory, "*", sub + ".jsonl"))):
            model = os.path.basename(os.path.dirname(path))
            with open(path, encoding="utf-8") as f:
                for line in f:
                    rec = json.loads(line)
                    ok, _ = score(rec)
                    total += 1
                    if int(ok) == rec["reference"]["result"]:
                        agree += 1
                    else:
                        wrong.append(f"{model}/{rec['id']}")
        bad += len(wrong)
        pct = 100.0 * agree / total if total else 0.0
        print(f"{sub:24s} {agree:6d}/{total:<6d} {pct:7.3f}%" + (f"  disagree: {' '.join(wrong[:20])}" if wrong else ""))
    return 1 if bad else 0


def main():
    global sent_tokenize
    args = sys.argv[1:]
    nltk_data = os.environ.get("NLTK_DATA", os.path.join(SHARED, "nltk_data"))
    if "--nltk-data" in args:
        k = args.index("--nltk-data")
        nltk_data = args[k + 1]
        del args[k:k + 2]
    json_only = "--json-only" in args
    if json_only:
        args.remove("--json-only")
    t0 = time.perf_counter()
    sent_tokenize = load_punkt(nltk_data).tokenize
    print(f"load_seconds={time.perf_counter() - t0:.3f}")
    if args and args[0] == "--check":
        return check(args[1] if len(args) > 1 else os.path.join(SHARED, "conformance", "dev"))
    if len(args) != 2:
        print("usage: reference_score.py [--nltk-data DIR] [--json-only] INPUT.jsonl OUTPUT.jsonl\n"
              "       reference_score.py [--nltk-data DIR] --check [DIR]", file=sys.stderr)
        return 2
    run(args[0], args[1], json_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
