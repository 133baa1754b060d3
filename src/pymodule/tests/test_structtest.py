"""`import structtest` against the CLI it must agree with (the real binary, named by
$STRUCTTEST_BINARY), the dev corpus (needs ../shared, skipped with the reason
otherwise), hostile input, and the reward adapters called as TRL and verl call them.
Run by ctest (python_module_test) with Debian's python3."""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

import docs_text
import structtest

BINARY = os.environ.get("STRUCTTEST_BINARY", "")
SHARED = os.environ.get("STRUCTTEST_SHARED", "")
DEV = os.path.join(SHARED, "conformance", "dev") if SHARED else ""

needs_binary = pytest.mark.skipif(not os.path.exists(BINARY),
                                  reason="STRUCTTEST_BINARY does not name the structtest binary")


def cli(*args, stdin=None):
    return subprocess.run([BINARY, *args], input=stdin, capture_output=True, text=True, check=False)


def answer(sample):
    """The sample's reference answer: the text the oracle responder sends."""
    target = sample["target"]
    return target["answer"] if isinstance(target, dict) else target


@pytest.fixture(scope="module")
def samples():
    return structtest.generate(seed=3, tasks=["summarization", "html", "math", "add_print_statements",
                                              "replace_variables"], limit=3)


# --- generate ----------------------------------------------------------------------------

@needs_binary
def test_generate_gives_the_records_the_cli_writes(tmp_path):
    out = tmp_path / "s.jsonl"
    r = cli("generate", "--seed", "3", "--tasks", "summarization,html,math,add_print_statements,"
            "replace_variables", "--limit", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    mine = structtest.generate(seed=3, tasks="summarization,html,math,add_print_statements,"
                               "replace_variables", limit=3)
    assert len(mine) == len(lines) > 20
    assert mine == [json.loads(line) for line in lines]


def test_generate_train_split_is_apart_from_eval_and_its_answers_pass():
    train = structtest.generate(seed=4, size=0.01, split="train")
    evals = structtest.generate(seed=4, size=0.01)
    assert {s["subtask"] for s in train} == {s["subtask"] for s in evals}
    assert all(s["id"].startswith("train-") for s in train)
    prompts = {s["messages"][0]["content"] for s in evals}
    assert not any(s["messages"][0]["content"] in prompts for s in train)
    for rules in ("paper", "strict"):
        verdicts = structtest.score_batch(train, [answer(s) for s in train], rules=rules)
        assert all(v.passed for v in verdicts), [(s["id"], v.reason) for s, v in zip(train, verdicts)
                                                 if not v.passed][:3]
    with pytest.raises(ValueError, match="unknown split 'test'"):
        structtest.generate(split="test")
    with pytest.raises(ValueError, match="takes no|no train split"):
        structtest.generate(suite="paper", split="train")


def test_generate_is_seeded():
    a = structtest.generate(seed=5, tasks=["math"], limit=2)
    assert a == structtest.generate(seed=5, tasks=["math"], limit=2)
    assert a != structtest.generate(seed=6, tasks=["math"], limit=2)


@pytest.mark.parametrize("kwargs, message", [
    ({"seed": -1}, "seed=-1"),
    ({"seed": 2 ** 64}, "seed="),
    ({"limit": 0}, "limit=0"),
    ({"tasks": ["htm"]}, "htm"),
    ({"suite": "papr"}, "papr"),
    ({"size": 0.0}, "size"),
])
def test_generate_refuses_bad_options_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        structtest.generate(**{"tasks": ["math"], "limit": 1, **kwargs})


# --- score ---------------------------------------------------------------------------------

@needs_binary
@pytest.mark.parametrize("rules", ["paper", "strict"])
def test_score_gives_the_verdicts_of_the_cli(tmp_path, samples, rules):
    # Each sample with its reference answer and with two wrong ones.
    records = []
    for s in samples:
        for response in (answer(s), answer(s)[: len(answer(s)) // 2], "I cannot help with that."):
            records.append(dict(s, response=response))
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "verdicts.jsonl"
    r = cli("score", "-i", str(path), "-o", str(out), "--rules", rules)
    assert r.returncode in (0, 1), r.stderr
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    mine = structtest.score_batch([{k: v for k, v in rec.items() if k != "response"} for rec in records],
                                  [rec["response"] for rec in records], rules=rules)
    assert len(mine) == len(expected)
    for v, e, rec in zip(mine, expected, records):
        assert (v.passed, v.reason, v.rules, v.rules_version) == \
            (e["pass"], e["reason"], e["rules"], e["rules_version"]), rec["id"]
        # one vocabulary: the checks as the JSON verdict has them
        assert v.checks == [(c["name"], c["result"], c["detail"]) for c in e["checks"]], rec["id"]
        assert v.score == e["score"], rec["id"]
        assert v == structtest.score(rec, rec["response"], rules)  # extra keys are ignored
    passed = sum(v.passed for v in mine)
    assert 0 < passed < len(mine)


def test_the_reference_answers_pass_under_both_rule_sets(samples):
    for rules in ("paper", "strict"):
        verdicts = structtest.score_batch(samples, [answer(s) for s in samples], rules=rules)
        assert all(v.passed for v in verdicts), [(s["id"], v.reason) for s, v in zip(samples, verdicts)
                                                 if not v.passed]
        assert {v.rules_version.split("-")[0] for v in verdicts} == {rules}


def test_threads_change_nothing(samples):
    responses = [answer(s) if i % 2 else "no" for i, s in enumerate(samples)]
    one = structtest.score_batch(samples, responses, rules="strict", threads=1)
    assert one == structtest.score_batch(samples, responses, rules="strict", threads=0)
    assert one == structtest.score_batch(samples, responses, rules="strict", threads=7)


def dev_files():
    if not DEV or not os.path.isdir(DEV):
        return []
    return sorted(os.path.join(DEV, model, name) for model in os.listdir(DEV)
                  if os.path.isdir(os.path.join(DEV, model))
                  for name in os.listdir(os.path.join(DEV, model))
                  if name in ("bullet_points_length.jsonl", "html_hard.jsonl", "math_hard.jsonl",
                              "questions.jsonl", "add_print_statements.jsonl"))[:5]


@needs_binary
@pytest.mark.skipif(not dev_files(), reason="needs ../shared/conformance/dev (not found)")
@pytest.mark.parametrize("rules", ["paper", "strict"])
def test_dev_corpus_verdicts_equal_the_cli(tmp_path, rules):
    for path in dev_files():
        out = tmp_path / "v.jsonl"
        r = cli("score", "-i", path, "-o", str(out), "--rules", rules)
        assert r.returncode in (0, 1), r.stderr
        expected = [json.loads(line) for line in out.read_text().splitlines()]
        records = [json.loads(line) for line in open(path, encoding="utf-8")]
        mine = structtest.score_batch(records, [rec["response"] for rec in records], rules=rules)
        assert [(v.passed, v.reason) for v in mine] == [(e["pass"], e["reason"]) for e in expected], path


def outcome(samples, responses, threads):
    """score_batch's verdicts, or the type and message of what it raised."""
    try:
        return structtest.score_batch(samples, responses, rules="strict", threads=threads)
    except (TypeError, ValueError) as e:
        return (type(e).__name__, str(e))


def test_samples_as_dicts_or_text_score_alike_in_long_batches_on_any_threads(samples):
    # Longer than the chunks the module reads at a time (64), with plain dicts, which it
    # reads itself (field by field), and shapes that go through json.dumps as before (a
    # dict subclass, a tuple, an int key, a float) or that its field-by-field reading
    # leaves to its JSON (messages as a tuple, an int id) or reads past (no target, a
    # message with more than role and content, a field a sample does not have): the
    # verdicts of their JSON text, whatever the threads; and the same errors.
    import collections
    records = samples * 6
    assert len(records) > 3 * 64
    responses = [answer(s) if i % 3 else "no" for i, s in enumerate(records)]
    odd = []
    for i, s in enumerate(records):
        kind = i % 10
        odd.append(collections.OrderedDict(s) if kind == 0 else
                   dict(s, context=dict(s["context"], note=(1, 2.5, None, True))) if kind == 1 else
                   dict(s, context=dict(s["context"], **{"k": {7: "seven"}})) if kind == 2 else
                   dict(s, context=dict(s["context"], big=2 ** 70, small=-2 ** 63)) if kind == 3 else
                   dict(s, messages=tuple(s["messages"])) if kind == 4 else
                   dict(s, id=1000 + i) if kind == 5 else
                   {k: v for k, v in s.items() if k != "target"} if kind == 6 else
                   dict(s, messages=[dict(m, name="x", weight=0.5) for m in s["messages"]])
                   if kind == 7 else
                   dict(s, response="kept apart", extra={"a": [1, None]}) if kind == 8 else
                   s)
    for batch in (records, odd):
        expected = outcome([json.dumps(r) for r in batch], responses, 1)
        assert not isinstance(expected, tuple), expected
        for threads in (1, 0, 7):
            assert outcome(batch, responses, threads) == expected, threads
            assert outcome(list(reversed(batch)), responses[::-1], threads) == expected[::-1]
        assert sum(v.passed for v in expected) > len(batch) // 2
    for bad in (dict(records[0], params=None), dict(records[0], id=None),
                dict(records[0], messages=[{"role": "user"}]), dict(records[0], context=[1]),
                dict(records[0], messages=[dict(records[0]["messages"][0], content=7)])):
        kind, message = outcome([bad], ["x"], 1)
        assert message.startswith("sample 0: "), message
        assert (kind, message) == outcome([json.dumps(bad)], ["x"], 1)


def test_the_first_bad_sample_of_a_long_batch_is_named_on_any_threads(samples):
    records = samples * 6
    responses = ["x"] * len(records)
    for threads in (1, 0, 7):
        bad = list(records)
        bad[150] = dict(bad[150], subtask="nope")
        bad[170] = dict(bad[170], domain="poetry")
        kind, message = outcome(bad, responses, threads)
        assert kind == "ValueError" and message.startswith("sample 150: "), message
        bad[130] = dict(bad[130], extra={1, 2})  # JSON cannot carry a set
        kind, message = outcome(bad, responses, threads)
        assert kind == "TypeError" and message.startswith("sample 130: "), message
        bad[140] = dict(bad[140], extra=float("nan"))  # json.dumps writes NaN, no JSON
        assert outcome(bad, responses, threads)[1].startswith("sample 130: ")
        bad[130] = records[130]
        kind, message = outcome(bad, responses, threads)
        assert kind == "ValueError" and message.startswith("sample 140: ") and "JSON" in message


def test_verdicts_compare_pickle_and_print():
    import pickle
    s = structtest.generate(seed=1, tasks=["numbered_points"], limit=1)[0]
    v = structtest.score(s, "1. one", rules="strict")
    assert not v and v.passed is False and 0 <= v.score < 1
    assert v.rules == "strict" and v.rules_version.startswith("strict-")
    assert v.checks and all(isinstance(c, tuple) and len(c) == 3 for c in v.checks)
    assert {c[1] for c in v.checks} <= {"pass", "fail", "not-checked"}
    assert pickle.loads(pickle.dumps(v)) == v
    copy = structtest.Verdict(v.passed, v.reason, v.rules_version, v.format, v.accuracy, v.checks,
                              v.score)
    assert copy == v and copy.checks == v.checks
    assert copy != structtest.Verdict(v.passed, v.reason + ".", v.rules_version, checks=v.checks,
                                      score=v.score)
    with pytest.raises(ValueError, match="the result of length is 'True', not pass, fail or not-checked"):
        structtest.Verdict(False, "no", "strict-3", checks=[("length", "True", "")])
    with pytest.raises(TypeError, match=r"checks: expected \(name, result, detail\) items"):
        structtest.Verdict(False, "no", "strict-3", checks=[("length", True)])
    assert v != "a verdict" and structtest.Verdict(True, "ok", "strict-1").score == 1.0
    assert repr(v).startswith("Verdict(passed=False, reason=")
    with pytest.raises(AttributeError):
        v.passed = True


# --- bad input -----------------------------------------------------------------------------

def test_bad_input_raises_naming_the_problem(samples):
    s = samples[0]
    with pytest.raises(TypeError, match="sample dict"):
        structtest.score(42, "x")
    with pytest.raises(TypeError, match="response as str"):
        structtest.score(s, 42)
    with pytest.raises(ValueError, match="rules='lenient'"):
        structtest.score(s, "x", rules="lenient")
    with pytest.raises(ValueError, match="subtask"):
        structtest.score({k: v for k, v in s.items() if k != "subtask"}, "x")
    with pytest.raises(ValueError, match="domain"):
        structtest.score(dict(s, domain="poetry"), "x")
    with pytest.raises(ValueError, match="not a JSON object"):
        structtest.score("{not json", "x")
    with pytest.raises(ValueError, match="sample 1"):
        structtest.score_batch([s, dict(s, subtask="nope")], ["a", "b"])
    with pytest.raises(ValueError, match="2 samples but 1 responses"):
        structtest.score_batch([s, s], ["a"])
    with pytest.raises(ValueError, match="threads"):
        structtest.score_batch([s], ["a"], threads=-1)
    with pytest.raises(ValueError, match="^sample: the response is not text that UTF-8 can carry"):
        structtest.score(s, "\udcff lone surrogate")
    with pytest.raises(ValueError, match="^sample 1: the sample text is not text that UTF-8"):
        structtest.score_batch([s, json.dumps(dict(s, id="x\udcff"), ensure_ascii=False)], ["a", "b"])
    with pytest.raises(TypeError, match="JSON cannot carry"):
        structtest.score(dict(s, extra=object()), "x")
    # The prompt is read only where strict needs it, and checked under both rule sets.
    for rules in ("paper", "strict"):
        for messages, message in (([{"role": "user", "content": 5}], "'content' must be a string"),
                                  ("a prompt", "'messages' must be an array"),
                                  ([{"content": "a prompt"}], "missing field 'role'")):
            with pytest.raises(ValueError, match=message):
                structtest.score(dict(s, messages=messages), "x", rules=rules)


def test_hostile_responses_are_scored_not_crashed(samples):
    for s in samples[:6]:
        for response in ("", "\x00" * 1000, "<think>" * 10000, "\u202e\ufeff" * 500,
                         "* " * (5 << 20), "<html>" * 100000):
            v = structtest.score(s, response, rules="strict")
            assert v.passed is False and v.reason


# --- rewards -------------------------------------------------------------------------------

def test_reward_splits_the_reasoning_and_uses_strict(samples):
    s = next(x for x in samples if x["domain"] == "math")
    good = answer(s)
    assert structtest.reward(s, good) == 1.0
    assert structtest.reward(s, "<think>\nlet me see\n</think>\n" + good) == 1.0
    assert structtest.reward(s, "<think>" + good) == 0.0  # cut off while thinking
    assert structtest.reward(json.dumps(s), [{"role": "assistant", "content": good}]) == 1.0


def test_a_conversational_completion_is_scored_on_its_last_message(samples):
    # An agent's completion in TRL's conversational format: a tool call, the tool's
    # output, then the answer. The reward is the last message's, whatever came before.
    s = next(x for x in samples if x["domain"] == "math")
    good = answer(s)
    call = {"role": "assistant", "content": "",
            "tool_calls": [{"type": "function", "function": {"name": "calculator",
                                                             "arguments": "{\"expression\": \"2+2\"}"}}]}
    tool = {"role": "tool", "content": good}
    answered = [call, tool, {"role": "assistant", "content": good}]
    gave_up = [{"role": "assistant", "content": good}, tool, {"role": "assistant", "content": "no idea"}]
    assert structtest.reward(s, answered) == 1.0
    assert structtest.reward(s, gave_up) == 0.0
    f = structtest.trl_reward()
    assert f([answered, gave_up], sample=[s, s]) == [1.0, 0.0]


def test_trl_rewards_land_on_their_own_completions_between_rows_of_other_tasks(samples):
    # A multi-task batch: the first and third rows are of another task (no sample).
    s = next(x for x in samples if x["domain"] == "math")
    f = structtest.trl_reward()
    assert f(["4", answer(s), "4", "no idea"], sample=[None, s, None, s]) == [None, 1.0, None, 0.0]


def test_trl_reward_takes_what_grpo_trainer_passes(samples):
    # More in test_rl_trainers.py, which replays TRL's own calls.
    f = structtest.trl_reward()
    # GRPOTrainer: completions, plus prompts, completion_ids and every dataset column.
    batch = samples[:4]
    completions = [answer(s) for s in batch[:2]] + ["no", "<think>x</think>" + answer(batch[3])]
    rewards = f(prompts=[s["messages"] for s in batch], completions=completions,
                completion_ids=[[1, 2]] * 4, sample=[json.dumps(s) for s in batch], trainer_state=None)
    assert rewards == [1.0, 1.0, 0.0, 1.0]
    conversational = [[{"role": "assistant", "content": c}] for c in completions]
    assert f(conversational, sample=batch) == rewards
    with pytest.raises(KeyError, match="neither a column 'sample'"):
        f(completions, prompts=[])
    with pytest.raises(ValueError, match="4 completions but 3"):
        f(completions, sample=batch[:3])


def test_verl_compute_score_takes_verls_keywords(samples):
    # More in test_rl_trainers.py, which replays verl's own calls.
    s = samples[1]
    kwargs = dict(data_source="structtest", ground_truth=json.dumps(s), extra_info={"index": 0})
    assert structtest.verl_compute_score(solution_str=answer(s), **kwargs) == \
        {"score": 1.0, "acc": 1.0, "failed_rule": ""}
    wrong = structtest.verl_compute_score(solution_str="nothing", **kwargs)
    assert wrong["score"] == wrong["acc"] == 0.0
    assert wrong["failed_rule"] == structtest.score(s, "nothing", rules="strict").reason.split(":")[0]
    assert structtest.verl_compute_score("structtest", answer(s), s)["score"] == 1.0
    assert structtest.verl_compute_score_batch(["structtest"] * 2, ["nothing", answer(s)], [s, s]) == \
        [wrong, {"score": 1.0, "acc": 1.0, "failed_rule": ""}]


@needs_binary
def test_version_is_the_binarys():
    # One version (CMakeLists.txt's project VERSION): `structtest --version` opens with it,
    # then lists each family's rules versions, which subtasks() gives per subtask.
    r = cli("--version")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "structtest " + structtest.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", structtest.__version__)
    families = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    for s in structtest.subtasks():
        paper, strict = families[s["domain"]][1].split("/"), families[s["domain"]][3].split("/")
        assert (s["paper_version"] or "-") in paper and (s["strict_version"] or "-") in strict, s["name"]


def test_subtasks_is_the_registry():
    subtasks = structtest.subtasks()
    assert len(subtasks) == 19
    assert {s["domain"] for s in subtasks} == {"summarization", "code", "html", "math"}
    math_hard = next(s for s in subtasks if s["name"] == "math_hard")
    assert math_hard["split"] == "hard" and math_hard["strict_version"].startswith("strict-")
    assert math_hard["paper_rules"] == ["format", "accuracy"]
    assert math_hard["strict_rules"][-3:] == ["answer-value", "arithmetic", "grounded"]


def test_rules_and_partial_credit(samples):
    s = next(x for x in samples if x["subtask"] == "math_easy")
    rules = next(t for t in structtest.subtasks() if t["name"] == "math_easy")["strict_rules"]
    good = structtest.score(s, answer(s), "strict")
    assert good.score == 1.0 and [c[0] for c in good.checks] == rules
    assert all(result == "pass" for _, result, _ in good.checks)
    # The right answer with nothing before it: only `reasoning` (and what follows) fails.
    last = answer(s).strip().splitlines()[-1]
    bare = structtest.score(s, last, "strict")
    assert not bare.passed
    assert bare.checks[0][1] == "pass" and bare.checks[2][1] == "fail", bare.checks
    assert bare.checks[2][0] == "reasoning" and bare.reason.startswith("reasoning: ")
    # the rules after the failed one were not checked, and say so
    assert all(r == "not-checked" for _, r, _ in bare.checks[3:]), bare.checks
    assert 0 < bare.score < 1 and bare.score == sum(r == "pass" for _, r, _ in bare.checks) / len(rules)
    assert structtest.reward(s, last) == 0.0
    assert structtest.reward(s, last, partial=True) == bare.score
    f = structtest.trl_reward(partial=True)
    assert f([last, answer(s)], sample=[s, s]) == [bare.score, 1.0]
    assert structtest.verl_compute_score("structtest", last, s, partial=True)["score"] == bare.score
    with pytest.raises(TypeError, match="partial"):
        structtest.reward(s, last, partial="yes")


def test_a_missing_sandbox_worker_is_an_error_of_the_code_samples_only(samples):
    # A child interpreter whose worker script is missing: a code sample raises naming
    # it, the others still score, and the interpreter carries on.
    code_sample = next(s for s in samples if s["domain"] == "code")
    math_sample = next(s for s in samples if s["domain"] == "math")
    program = ("import json, sys, structtest\n"
               "code, math = json.loads(sys.argv[1]), json.loads(sys.argv[2])\n"
               "try:\n"
               "    structtest.score(code, 'x')\n"
               "except ValueError as e:\n"
               "    print('ValueError', e)\n"
               "print(structtest.score(math, math['target']['answer']).passed)\n")
    r = subprocess.run([sys.executable, "-c", program, json.dumps(code_sample), json.dumps(math_sample)],
                       capture_output=True, text=True, check=False,
                       env=dict(os.environ, STRUCTTEST_WORKER="/nonexistent/worker.py"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ValueError sample: ") and "/nonexistent/worker.py" in lines[0], r.stdout
    assert lines[1] == "True"


def test_the_python_and_rl_example_runs():
    block = docs_text.block(docs_text.page("docs/python-and-rl.md"), "python", "trl_reward",
                            "docs/python-and-rl.md")
    assert "trl_reward" in block and "verl_compute_score" in block and "reward(" in block
    exec(compile(block, "docs/python-and-rl.md (Python and RL)", "exec"), {})


def test_the_readme_python_quick_start_runs():
    section = docs_text.section("README.md", "### Python")
    block = docs_text.block(section, "python", "structtest.reward", "README.md (### Python)")
    exec(compile(block, "README.md (quick start, Python)", "exec"), {})


def run_documented_command(line, cwd):
    """Runs one `build/structtest ...` line of the docs (VAR=value words first allowed,
    # comments dropped) with this build's binary and the checkout's examples/."""
    words = shlex.split(line, comments=True)
    env = dict(os.environ)
    while words and re.match(r"^[A-Z_]+=", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0] == "build/structtest", line
    words = [BINARY] + [os.path.join(docs_text.ROOT, w) if w.startswith("examples/") else w
                        for w in words[1:]]
    return subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@needs_binary
def test_the_readme_quick_start_commands_run(tmp_path):
    """Every command of the README's quick start that needs no model server runs and
    exits 0, in the order given (a run, then its report)."""
    ran = 0
    for heading in ("### The built-in suite", "### A model behind", "### Scoring a file"):
        section = docs_text.section("README.md", heading)
        for block in docs_text.blocks(section, "sh"):
            for line in block.splitlines():
                if not line.strip() or "--base-url http://localhost" in line:
                    continue  # a model server of your own
                r = run_documented_command(line, tmp_path)
                assert r.returncode == 0, "README.md: {}\n{}".format(line, r.stderr)
                ran += 1
    assert ran >= 6, "README.md: the quick start has {} command(s) left to run".format(ran)
