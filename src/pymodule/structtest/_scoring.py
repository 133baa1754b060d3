"""generate, score, score_batch, subtasks, split_thinking: the C++ checks
(structtest._core) behind plain Python calls, with the input checked and errors naming
the record and the field. The package's __init__ re-exports them."""
import json
import os

# The code subtasks run Python programs in structtest's sandbox, whose worker script
# sits in this folder.
os.environ.setdefault(
    "STRUCTTEST_WORKER", os.path.join(os.path.dirname(os.path.abspath(__file__)), "structtest_worker.py"))

from . import _core  # noqa: E402

RULE_SETS = ("paper", "strict")


# One response's verdict (passed, reason, rules_version, rules, score, format, accuracy):
# a C++ class, whose rules become Python tuples only when read.
Verdict = _core.Verdict


def _check_rules(rules):
    if not isinstance(rules, str):
        raise TypeError("rules: expected 'paper' or 'strict', got {}".format(type(rules).__name__))
    if rules not in RULE_SETS:
        raise ValueError("rules={!r}: expected 'paper' or 'strict'".format(rules))


def _sample_text(sample, where):
    """The sample as JSON text; TypeError when it is neither a dict nor JSON text."""
    if isinstance(sample, dict):
        try:
            return json.dumps(sample, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise TypeError("{}: the sample holds a value JSON cannot carry ({})".format(where, e))
    if isinstance(sample, (str, bytes)):
        text = sample.decode("utf-8", "replace") if isinstance(sample, bytes) else sample
        try:
            if not isinstance(json.loads(text), dict):
                raise ValueError
        except ValueError:
            raise ValueError("{}: the sample is text but not a JSON object".format(where))
        return text
    raise TypeError("{}: expected a sample dict (as structtest generate writes), got {}".format(
        where, type(sample).__name__))


def _response_text(response, where):
    if isinstance(response, str):
        return response
    raise TypeError("{}: expected the response as str, got {}".format(where, type(response).__name__))


def generate(suite="default", seed=0, size=1.0, tasks=None, limit=None, split="eval",
             rules_per_sample=None, difficulty=None):
    """The samples `structtest generate` writes with the same options, as dicts, in the
    same order (same seed, same bytes). suite: "default", "paper" or "composed"; tasks:
    subtask or domain names (None: all); limit: at most this many samples per subtask;
    split: "eval" or "train" (training prompts whose source items no eval suite of any
    seed holds). The composed suite's dial: rules_per_sample, 1 to 8 format rules per
    sample (None: 3), or difficulty: "easy", "medium", "hard" or "extreme" (2, 4, 6, 8)."""
    if not isinstance(split, str):
        raise TypeError("split: expected 'eval' or 'train', got {}".format(type(split).__name__))
    if isinstance(tasks, str):
        tasks = [t for t in tasks.split(",") if t]
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 64:
        raise ValueError("seed={!r}: expected a whole number from 0 to 2**64-1".format(seed))
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError("limit={!r}: expected a positive number of samples".format(limit))
    if rules_per_sample is not None and (not isinstance(rules_per_sample, int)
                                         or isinstance(rules_per_sample, bool)
                                         or not 1 <= rules_per_sample <= 8):
        raise ValueError("rules_per_sample={!r}: expected a whole number from 1 to 8".format(
            rules_per_sample))
    if difficulty is not None and not isinstance(difficulty, str):
        raise TypeError("difficulty: expected 'easy', 'medium', 'hard' or 'extreme', got {}".format(
            type(difficulty).__name__))
    return [json.loads(line)
            for line in _core.generate(suite, seed, float(size), list(tasks or []), limit, split,
                                       rules_per_sample or 0, difficulty or "")]


def _verdicts(samples, responses, rules, threads, what, indexed=True, indices=None):
    """The verdicts of the pairs; errors name the sample as "<what> <index>" (indexed;
    indices[i] for the i-th pair when given: the pairs were picked out of a batch) or
    "<what>"."""
    def name(i):
        if not indexed:
            return what
        return "{} {}".format(what, i if indices is None else indices[i])

    _check_rules(rules)
    samples = samples if type(samples) is list else list(samples)
    if not all(type(r) is str for r in responses):
        responses = [_response_text(r, "response {}".format(i)) for i, r in enumerate(responses)]
    result = None
    if all(type(s) is dict for s in samples):
        # The C++ side reads plain dicts itself (None: one that JSON cannot carry).
        result = _core.score_batch(samples, responses, rules, threads)
    if result is None:
        texts = [_sample_text(s, name(i)) for i, s in enumerate(samples)]
        result = _core.score_batch(texts, responses, rules, threads)
    verdicts, bad, error = result
    if bad >= 0:
        raise ValueError("{}: {}".format(name(bad), error))
    return verdicts


def score(sample, response, rules="paper"):
    """The Verdict of `response` for `sample` under `rules` ("paper" or "strict"). The
    response is scored as given: split a reasoning model's <think> block off first
    (split_thinking), as `structtest run` does. ValueError: the sample cannot be scored
    (its message names the field)."""
    return _verdicts([sample], [_response_text(response, "response")], rules, 1, "sample",
                     indexed=False)[0]


def score_batch(samples, responses, rules="paper", threads=0):
    """score() of each (sample, response) pair, on up to `threads` threads (0: every
    core), without holding the GIL. The calling thread reads the records (it must hold
    the GIL for that); the others join in once scoring takes longer than reading, so
    records that score in a microsecond or two (math) stay on one thread, where handing
    them over would cost more than it saves. Raises on the first record that cannot be
    scored, naming its index."""
    samples, responses = list(samples), list(responses)
    if len(samples) != len(responses):
        raise ValueError("{} samples but {} responses: one response per sample".format(
            len(samples), len(responses)))
    if not isinstance(threads, int) or threads < 0:
        raise ValueError("threads={!r}: expected 0 (every core) or more".format(threads))
    return _verdicts(samples, responses, rules, threads, "sample")


def subtasks():
    """The registry: one dict per subtask (domain, name, split, description, params,
    paper_version, strict_version, counts_sentences, runs_python, and paper_rules and
    strict_rules: the names of the rules its verdicts list, in order)."""
    return _core.subtasks()


def split_thinking(text):
    """(answer, reasoning): a leading <think>...</think> block (or one whose opening tag
    the chat template wrote) split off the answer, as `structtest run` does."""
    return _core.split_thinking(_response_text(text, "text"))


