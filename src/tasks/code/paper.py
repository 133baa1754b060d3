"""The code family's paper rules, the Python half of the paper checkers in family.cc.

family.cc asks the sandbox's worker (src/sandbox/worker.py) for these jobs, the
reference's own judgement: "simulate" (simulate_execute, function style: the answer
evaluated and compared with the expected output), "calls" (test_case_inputs_gen,
function style: each input line evaluated and passed to the task's function) and
"subst" (replace_variables: the reference's re.sub, for the mappings structtest does
not handle itself); the worker answers small "simulate" and "calls" requests itself
with inline_simulate and inline_calls, which evaluate nothing (see run_inline in
worker.py). test_case_inputs_gen's stdin style ("stdin") stays in the worker, whose
processes it drives. The worker imports this file as a module of its own: it is
installed beside the worker script, under the name structtest_code_paper.py, wherever
that script is (the build tree, share/structtest/, the Python package), and the worker
says which file it lacks and where it looked when it is missing.

The rules use a few of the worker's pieces, which the worker hands over with bind()
before it answers a request: _describe, _safe_repr and REPR_CAP (how an exception and a
value are shown, the same as in the worker's other results), and, for the jobs that
run the task's code in the job, _preamble_for, _on_alarm, _TimeLimit and
_leave_if_forked. Like the worker it needs only the standard library.
"""

import ast
import re
import signal
import types

# The worker's names that the rules below use, set by bind().
WORKER_NAMES = ("_describe", "_safe_repr", "REPR_CAP", "_preamble_for", "_on_alarm",
                "_TimeLimit", "_leave_if_forked")


def bind(worker_globals):
    """Takes WORKER_NAMES from the worker's module namespace (its globals())."""
    for name in WORKER_NAMES:
        globals()[name] = worker_globals[name]


# ---- paper rules: model text evaluated, in a job's sandboxed child --------------------

def _to_list(value):
    return list(value) if isinstance(value, tuple) else value


def job_simulate(req):
    """simulate_execute, function style: the answer must equal the expected output."""
    try:
        expected = _to_list(eval(req["expected"], {}))
    except BaseException as e:
        return {"bad_expected": _describe(e)}
    try:
        answer = _to_list(eval(req["answer"], {}))
    except BaseException as e:
        return {"pass": False, "eval_error": _describe(e)}
    return _simulate_result(answer, expected)


def _simulate_result(answer, expected):
    try:
        result = answer == expected
        try:
            # The reference harness's allowance for a list of tuples.
            if isinstance(answer[0], tuple):
                result = result or ([list(x) for x in answer] == expected[0])
        except BaseException:
            pass
        passed = bool(result)
    except BaseException as e:
        return {"pass": False, "compare_error": _describe(e),
                "answer": _safe_repr(answer), "expected": _safe_repr(expected)}
    return {"pass": passed, "answer": _safe_repr(answer), "expected": _safe_repr(expected)}


class _NeedsChild(Exception):
    pass


def _literal_line(line):
    """eval(line, {}) for a line that is a literal (ast.literal_eval gives it the same
    value) or no expression (compile raises the error eval would); _NeedsChild else."""
    try:
        return ast.literal_eval(line)
    except BaseException:
        pass
    compile(line.lstrip(" \t"), "<string>", "eval")  # as eval strips
    raise _NeedsChild()


def inline_simulate(req):
    """job_simulate without eval, for an expected output that is a Python literal and
    an answer that is one too (ast.literal_eval gives such a text the value eval gives
    it) or does not compile (eval would raise the same error, having run nothing);
    None otherwise, and the job runs in a child."""
    try:
        expected = _to_list(ast.literal_eval(req["expected"]))
    except BaseException:
        return None
    try:
        answer = _to_list(_literal_line(req["answer"]))
    except (SyntaxError, ValueError) as e:  # compile's, which eval would raise
        return {"pass": False, "eval_error": _describe(e)}
    except BaseException:  # an expression (_NeedsChild), or anything unusual
        return None
    return _simulate_result(answer, expected)


def _eval_input_lines(text, evaluate=lambda line: eval(line, {})):
    """Each non-empty line evaluated: a tuple becomes a list, a non-list is wrapped."""
    inputs, numbers, dropped = [], [], []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = evaluate(line)
        except _NeedsChild:
            raise
        except BaseException as e:
            dropped.append({"line": number, "text": line[:REPR_CAP], "error": _describe(e)})
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif not isinstance(value, list):
            value = [value]
        inputs.append(value)
        numbers.append(number)
    return inputs, numbers, dropped


def inline_calls(req):
    """job_calls's result when the answer does not give gen_n inputs (so nothing runs)
    and each of its lines is a literal or no expression at all; None otherwise, and the
    job runs in a child."""
    try:
        inputs, numbers, dropped = _eval_input_lines(req["answer"], _literal_line)
    except _NeedsChild:
        return None
    if len(inputs) == req["gen_n"]:
        return None
    return {"count": len(inputs), "lines": numbers[:100], "dropped": dropped[:5],
            "dropped_count": len(dropped)}


def job_calls(req):
    """test_case_inputs_gen, function style, the way the reference harness runs it."""
    inputs, numbers, dropped = _eval_input_lines(req["answer"])
    out = {"count": len(inputs), "lines": numbers[:100], "dropped": dropped[:5],
           "dropped_count": len(dropped)}
    if len(inputs) != req["gen_n"]:
        return out
    limit = max(1, int(req.get("timeout", 4)))
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(limit)
    try:
        module = types.ModuleType("tmp_sol")
        exec(compile(_preamble_for(req["source"]) + req["source"], "<source>", "exec"),
             module.__dict__)
        target = module.Solution() if "class Solution" in req["source"] else module
        signal.alarm(0)
    except BaseException as e:
        signal.alarm(0)
        _leave_if_forked()
        out["load_error"] = "time limit" if isinstance(e, _TimeLimit) else _describe(e)
        return out
    try:
        method = getattr(target, req["fn_name"])
    except BaseException as e:
        out["load_error"] = _describe(e)
        return out
    results = []
    for args in inputs:
        # Quirk of the reference harness: a dict first argument has its keys turned
        # into ints, and then is the only argument.
        try:
            if isinstance(args[0], dict):
                args = [{int(k): v for k, v in args[0].items()}]
        except BaseException:
            pass
        signal.alarm(limit)
        try:
            method(*args)
            signal.alarm(0)
            _leave_if_forked()
            results.append({"ok": True})
        except BaseException as e:
            signal.alarm(0)
            _leave_if_forked()
            if isinstance(e, _TimeLimit):
                results.append({"ok": False, "timeout": True})
            else:
                results.append({"ok": False, "error": _describe(e)})
            break  # the verdict is decided; the reference ran the rest to no effect
    out["results"] = results
    return out


def job_subst(req):
    """replace_variables: the reference's re.sub of each old:new over the source (only
    for mappings structtest does not handle itself)."""
    code = req["source"]
    for m in req["mapping"]:
        old, new = m.split(":")
        try:
            code = re.sub(r"(?<!\.)\b" + old + r"\b", new, code)
        except BaseException as e:
            return {"bad_mapping": "%s: %s" % (m, _describe(e))}
    return {"code": code}
