"""The code family's generation jobs, the Python half of generator.cc.

generator.cc asks the sandbox's worker (src/sandbox/worker.py) for these jobs when it
makes samples (structtest generate): "call_values" (what task functions return on
inputs) and "stdin_outputs" (what task programs print on inputs), the expected outputs
of structtest's own template programs, never of model text; each runs in a job's
sandboxed child all the same. call_values uses the strict rules' _exact_literal
(structtest_code_strict.py, beside this file) to mark the values strict_simulate may
take as the returned ones. The worker imports this file as a module of its own: it is
installed beside the worker script, under the name structtest_code_generator.py,
wherever that script is (the build tree, share/structtest/, the Python package), and
the worker says which file it lacks and where it looked when it is missing.

The jobs use a few of the worker's pieces, which the worker hands over with bind()
before it answers a request: _describe and _safe_repr (how an exception and a value are
shown), _on_alarm, _TimeLimit, _timed and _leave_if_forked (time limits and forked
copies, as in the worker's other jobs) and _mark (where a job is, in memory the worker
reads when a job dies without a result). Like the worker it needs only the standard
library.
"""

import builtins
import io
import json
import signal
import sys

import structtest_code_strict as code_strict

# The worker's names that the jobs below use, set by bind().
WORKER_NAMES = ("_describe", "_safe_repr", "_on_alarm", "_TimeLimit", "_timed",
                "_leave_if_forked", "_mark")


def bind(worker_globals):
    """Takes WORKER_NAMES from the worker's module namespace (its globals())."""
    for name in WORKER_NAMES:
        globals()[name] = worker_globals[name]


# ---- generation jobs: the expected outputs of structtest's own template programs --------

class _OutputLimit(BaseException):
    """A program printed more than a generation job allows (BaseException, like a
    time limit, so that the program's own `except Exception` cannot swallow it)."""


class _CappedText(io.StringIO):
    """Captured standard output that stops the program once it passes `cap` characters."""

    def __init__(self, cap):
        super().__init__()
        self._cap = cap
        self._left = cap

    def write(self, text):
        self._left -= len(text)
        if self._left < 0:
            raise _OutputLimit("printed more than %d characters" % self._cap)
        return super().write(text)


def _failure(e, limit):
    """The result of an input that failed with `e`, naming the limit it hit, if any."""
    if isinstance(e, _TimeLimit):
        return {"ok": False, "limit": "time", "error": "more than %g s" % limit}
    if isinstance(e, MemoryError):
        return {"ok": False, "limit": "memory", "error": _describe(e)}
    if isinstance(e, _OutputLimit):
        return {"ok": False, "limit": "output", "error": str(e)}
    return {"ok": False, "error": _describe(e)}


def _capped(result, cap):
    """`result`, or an output-limit failure when its JSON takes more than `cap` bytes:
    every result of a generation job is at most `cap` bytes, so that structtest can put
    as many programs in one job as fit in the job's RESULT_CAP."""
    size = len(json.dumps(result))
    if size <= cap:
        return result
    why = "a result of %d bytes of JSON, more than %d" % (size, cap)
    if "load_error" in result:
        return {"load_error": "output limit: " + why}
    return {"ok": False, "limit": "output", "error": why}


def _generation_limits(req):
    return max(0.1, float(req.get("timeout", 1))), max(64, int(req.get("output_cap", 2048)))


def job_call_values(req):
    """Expected return values of task functions (structtest generate): for each
    program of "programs" ({"source", "fn_name", "inputs"}, an input being the text of
    an argument list), calls the function twice per input. A result is "ok" with the
    value's "repr" when both calls return equal values whose repr evaluates back to an
    equal value (and "exact" when the repr is the value itself, as job_returned would
    report it); else it has "error", and "limit" ("time", "memory", "output") when the
    input hit one. Each result takes at most "output_cap" bytes of JSON."""
    limit, cap = _generation_limits(req)
    signal.signal(signal.SIGALRM, _on_alarm)
    out = []
    for i, prog in enumerate(req["programs"]):
        _mark(i, -1)
        try:
            ns = {"__name__": "tmp_sol"}
            _timed(lambda: exec(compile(prog["source"], "<source>", "exec"), ns), limit)
            fn = ns[prog["fn_name"]]
        except BaseException as e:
            _leave_if_forked()
            why = "time limit" if isinstance(e, _TimeLimit) else _describe(e)
            out.append(_capped({"load_error": why}, cap))
            continue
        results = []
        for k, text in enumerate(prog["inputs"]):
            _mark(i, k)
            try:
                first = _timed(lambda: fn(*eval("[" + text + "]", {})), limit)
                second = _timed(lambda: fn(*eval("[" + text + "]", {})), limit)
                _leave_if_forked()
                r = repr(first)
                if len(r) > cap:
                    raise _OutputLimit("a value whose repr has %d characters, more than %d"
                                       % (len(r), cap))
                if not (first == second and repr(second) == r and eval(r, {}) == first):
                    results.append({"ok": False, "error": "not deterministic or not a literal"})
                else:
                    # "exact" (after the cap, which it does not count against: the
                    # generator budgets it): the repr is the value itself as
                    # job_returned sees it, so that strict simulate_execute need not
                    # call the function again (the strict rules' own test of it).
                    result = _capped({"ok": True, "repr": r}, cap)
                    if result["ok"]:
                        result["exact"] = code_strict._exact_literal(first) == r
                    results.append(result)
            except BaseException as e:
                _leave_if_forked()
                results.append(_capped(_failure(e, limit), cap))
        out.append({"results": results})
    return {"programs": out}


def job_stdin_outputs(req):
    """Expected outputs of task programs (structtest generate): each program of
    "programs" ({"source", "inputs"}) runs twice on each of its inputs, as __main__,
    inside this job's process (these are structtest's own template programs, never
    model text; the job's sandbox is the boundary, and a fork per run would cost ~5 ms).
    A result is "ok" with the printed "stdout" when both runs finish within the time
    limit, without an error, and print the same; else it has "error", and "limit"
    ("time", "memory", "output") when the input hit one. Each result takes at most
    "output_cap" bytes of JSON."""
    limit, cap = _generation_limits(req)
    signal.signal(signal.SIGALRM, _on_alarm)
    saved = sys.stdin, sys.stdout, sys.stderr
    out = []
    for i, prog in enumerate(req["programs"]):
        _mark(i, -1)
        try:
            code = compile(prog["source"], "<program>", "exec")
        except BaseException as e:
            out.append(_capped({"load_error": _describe(e)}, cap))
            continue
        results = []
        for k, text in enumerate(prog["inputs"]):
            _mark(i, k)
            printed = []
            try:
                for _ in range(2):
                    buf = _CappedText(cap)
                    sys.stdin, sys.stdout, sys.stderr = io.StringIO(text), buf, buf
                    try:
                        _timed(lambda: exec(code, {"__name__": "__main__",
                                                   "__builtins__": builtins}), limit)
                    except SystemExit as e:
                        if e.code not in (None, 0):
                            raise RuntimeError("exit status %s" % _safe_repr(e.code))
                    finally:
                        sys.stdin, sys.stdout, sys.stderr = saved
                    _leave_if_forked()
                    printed.append(buf.getvalue())
                if printed[0] != printed[1]:
                    results.append({"ok": False, "error": "not deterministic"})
                else:
                    results.append(_capped({"ok": True, "stdout": printed[0]}, cap))
            except BaseException as e:
                _leave_if_forked()
                results.append(_capped(_failure(e, limit), cap))
        out.append({"results": results})
    return {"programs": out}
