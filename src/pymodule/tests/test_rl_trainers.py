"""The reward adapters called as verl and TRL call them: replay_verl.py and replay_trl.py
take the steps of the trainers' own code (each names the upstream file, commit and lines:
verl b178a3cd56f5 and, for its loader before 852f5fdf7, 809ae51204e8; TRL f2cd57710ae3),
here fed with structtest samples and answers. Run by ctest (python_module_test)."""
import json
import math
import os
import pickle
import subprocess
import sys

import pytest

import docs_text
import structtest
import replay_trl
import replay_verl

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_INIT = os.path.join(os.path.dirname(os.path.abspath(structtest.__file__)), "__init__.py")


def answer(sample):
    target = sample["target"]
    return target["answer"] if isinstance(target, dict) else target


@pytest.fixture(scope="module")
def samples():
    return structtest.generate(seed=11, tasks=["math", "html", "bullet_points", "replace_variables"],
                               limit=2)


def verl_row(sample, index):
    """A row of a verl dataset, as verl's examples/data_preprocess scripts write them: the
    structtest sample as reward_model.ground_truth, in JSON text."""
    return {"data_source": "structtest", "prompt": sample["messages"], "ability": sample["domain"],
            "reward_model": {"style": "rule", "ground_truth": json.dumps(sample)},
            "extra_info": {"split": "train", "index": index}}


def arrow_rows(rows):
    """The rows as a datasets.Dataset gives them back (Dataset.from_list, or
    load_dataset("json") of a JSONL file): a column of dicts is one Arrow struct with
    the keys of every row, a row's missing ones None."""
    def unify(values):
        dicts = [v for v in values if isinstance(v, dict)]
        if dicts:
            keys = []
            for d in dicts:
                keys += [k for k in d if k not in keys]
            fields = {k: unify([v.get(k) if isinstance(v, dict) else None for v in values]) for k in keys}
            return [None if v is None else {k: fields[k][i] for k in keys} for i, v in enumerate(values)]
        if any(isinstance(v, list) for v in values):
            flat = unify([x for v in values if isinstance(v, list) for x in v])
            out, at = [], 0
            for v in values:
                if isinstance(v, list):
                    out.append(flat[at:at + len(v)])
                    at += len(v)
                else:
                    out.append(v)
            return out
        return values

    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    unified = {c: unify([row.get(c) for row in rows]) for c in columns}
    return [{c: unified[c][i] for c in columns} for i in range(len(rows))]


# --- verl: loading the reward function -----------------------------------------------------

LOADERS = {
    "current": "replay_verl.get_custom_reward_fn",
    "before-852f5fdf7": "replay_verl.get_custom_reward_fn_before_852f5fdf7",
}

CHILD = r"""
import json, sys
sys.path.insert(0, {here!r})
import replay_verl
loader, path, name, kwargs = {loader}, {path!r}, {name!r}, {kwargs!r}
rows, responses = json.load(sys.stdin)
compute_score = loader(path, name, kwargs)
if name.endswith("_batch"):
    rewards, extra = replay_verl.batch_reward_manager(compute_score, rows, responses)
else:
    rewards, extra = replay_verl.naive_reward_manager(compute_score, rows, responses)
cores = sorted(m for m in sys.modules if m == "_core" or m.endswith("._core"))
print(json.dumps({{"rewards": rewards, "extra": extra, "cores": cores}}))
"""


def verl_in_a_child(loader, path, name, rows, responses, kwargs=None, pythonpath=False):
    """The reward function loaded by verl's loader in a fresh interpreter (with structtest
    on its path only if `pythonpath`: a file path needs none) and called by the reward
    manager its name is for; the rewards, reward_extra_info and the _core modules loaded."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(PACKAGE_INIT))
    program = CHILD.format(here=HERE, loader=LOADERS[loader], path=path, name=name, kwargs=kwargs or {})
    r = subprocess.run([sys.executable, "-c", program], input=json.dumps([rows, responses]),
                       capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


@pytest.mark.parametrize("loader, path, pythonpath", [
    ("current", PACKAGE_INIT, False),              # the docs' custom_reward_function.path
    ("current", "file://" + PACKAGE_INIT, False),
    ("current", "pkg://structtest", True),
    ("before-852f5fdf7", PACKAGE_INIT, False),
])
@pytest.mark.parametrize("name", ["verl_compute_score", "verl_compute_score_batch"])
def test_verl_loads_and_calls_the_reward_function(samples, loader, path, pythonpath, name):
    rows = [verl_row(s, i) for i, s in enumerate(samples)]
    responses = [answer(s) if i % 2 else "I don't know." for i, s in enumerate(samples)]
    got = verl_in_a_child(loader, path, name, rows, responses, pythonpath=pythonpath)
    assert got["rewards"] == [float(i % 2) for i in range(len(samples))]
    # One copy of the C++ extension, under the package's own name.
    assert got["cores"] == ["structtest._core"]
    # Every key of the dict result, one value per response, as verl logs them.
    extra = got["extra"]
    assert sorted(extra) == ["acc", "failed_rule", "score"]
    assert all(len(values) == len(samples) for values in extra.values())
    assert extra["acc"] == got["rewards"]
    for i, (s, rule) in enumerate(zip(samples, extra["failed_rule"])):
        if i % 2:
            assert rule == ""
        else:
            v = structtest.score(s, "I don't know.", rules="strict")
            assert rule == next(n for n, result, _ in v.checks if result == "fail") and rule in v.reason


def test_verls_reward_kwargs_reach_the_reward_function(samples):
    # custom_reward_function.reward_kwargs: partial credit, and the paper rules.
    s = next(x for x in samples if x["subtask"] == "math_easy")
    bare = answer(s).strip().splitlines()[-1]
    rows = [verl_row(s, 0)]
    got = verl_in_a_child("current", PACKAGE_INIT, "verl_compute_score_batch", rows, [bare],
                          kwargs={"partial": True})
    assert got["rewards"] == [structtest.score(s, bare, rules="strict").score]
    assert 0 < got["rewards"][0] < 1 and got["extra"]["acc"] == [0.0]
    got = verl_in_a_child("current", PACKAGE_INIT, "verl_compute_score", rows, [bare],
                          kwargs={"rules": "paper"})
    assert got["rewards"] == [1.0 if structtest.score(s, bare, rules="paper").passed else 0.0]


def test_verls_loaders_in_a_process_that_imported_structtest(samples):
    # The file executed again, under verl's names, in this process: it hands out the
    # functions of the package already imported, not a second copy.
    rows = [verl_row(s, i) for i, s in enumerate(samples)]
    responses = [answer(s) for s in samples]
    fn = replay_verl.get_custom_reward_fn(PACKAGE_INIT, "verl_compute_score_batch")
    assert fn.args[0] is structtest.verl_compute_score_batch
    assert replay_verl.batch_reward_manager(fn, rows, responses)[0] == [1.0] * len(rows)
    assert "custom_module" not in sys.modules
    try:
        fn = replay_verl.get_custom_reward_fn_before_852f5fdf7(PACKAGE_INIT, "verl_compute_score")
        assert fn.args[0] is structtest.verl_compute_score
        assert replay_verl.naive_reward_manager(fn, rows, responses)[0] == [1.0] * len(rows)
    finally:
        sys.modules.pop("custom_module", None)


def test_a_second_structtest_is_refused_naming_both(tmp_path):
    # A copy of the package's __init__.py in another folder named structtest, executed
    # by verl's loader while this one is imported: an error naming both, not a mix.
    other = tmp_path / "structtest"
    other.mkdir()
    (other / "__init__.py").write_text(open(PACKAGE_INIT, encoding="utf-8").read())
    with pytest.raises(RuntimeError, match="Error loading module") as e:
        replay_verl.get_custom_reward_fn(str(other / "__init__.py"), "verl_compute_score")
    assert isinstance(e.value.__cause__, ImportError)
    assert str(other) in str(e.value.__cause__) and "already imported from" in str(e.value.__cause__)


def test_verl_batch_errors_name_the_item(samples):
    fn = replay_verl.get_custom_reward_fn(PACKAGE_INIT, "verl_compute_score_batch")
    rows = [verl_row(s, i) for i, s in enumerate(samples[:3])]
    rows[2]["reward_model"]["ground_truth"] = json.dumps(dict(samples[2], subtask="nope"))
    with pytest.raises(ValueError, match="^ground_truths 2: "):
        replay_verl.batch_reward_manager(fn, rows, ["x"] * 3)
    with pytest.raises(ValueError, match="3 solution_strs but 2 ground_truths"):
        structtest.verl_compute_score_batch(["s"] * 3, ["x"] * 3, [rows[0]["reward_model"]["ground_truth"]] * 2)


def test_verl_ground_truth_as_a_struct_column(samples):
    # A dataset that stored the sample as a dict (a parquet struct) gives it back with
    # the keys of every row's sample; the ones this sample lacks are None.
    rows = arrow_rows([{"data_source": "structtest", "reward_model": {"ground_truth": s}} for s in samples])
    assert any(None in r["reward_model"]["ground_truth"]["context"].values() for r in rows)
    fn = replay_verl.get_custom_reward_fn("pkg://structtest", "verl_compute_score_batch")
    rewards, _ = replay_verl.batch_reward_manager(fn, rows, [answer(s) for s in samples])
    assert rewards == [1.0] * len(samples)


# --- TRL -------------------------------------------------------------------------------------

def grpo_batch(rows, samples, num_generations=2, wrong="Sorry, no."):
    """A GRPO batch: each row once per generation, the first generation its sample's
    reference answer (none for a row without a sample), the others `wrong`."""
    inputs, completions = [], []
    for row, s in zip(rows, samples):
        for g in range(num_generations):
            inputs.append(row)
            completions.append(answer(s) if g == 0 and s is not None else wrong)
    return inputs, completions


def test_trl_rewards_have_their_own_names():
    funcs = [structtest.trl_reward(), structtest.trl_reward(partial=True),
             structtest.trl_reward(rules="paper"), structtest.trl_reward(rules="paper", partial=True),
             structtest.trl_reward(column="gt"), structtest.trl_reward(name="format_reward")]
    trainer = replay_trl.GRPORewards(funcs)
    assert trainer.reward_func_names == ["structtest_strict", "structtest_strict_partial", "structtest_paper",
                                         "structtest_paper_partial", "structtest_strict_gt", "format_reward"]


def test_grpo_trainer_with_a_sample_column(samples):
    rows = arrow_rows([{"prompt": s["messages"], "sample": s} for s in samples])
    inputs, completions = grpo_batch(rows, samples)
    # Conversational completions (a list of messages) and text ones, mixed.
    completions = [[{"role": "assistant", "content": c}] if i % 4 == 0 else c
                   for i, c in enumerate(completions)]
    trainer = replay_trl.GRPORewards([structtest.trl_reward(), structtest.trl_reward(partial=True)])
    strict, partial = trainer.calculate_rewards(inputs, completions, [[1, 2]] * len(inputs))
    assert strict == [1.0, 0.0] * len(samples)
    assert partial[0::2] == [1.0] * len(samples) and all(0 <= p < 1 for p in partial[1::2])
    # The sample as JSON text works alike.
    text_rows = [dict(r, sample=json.dumps(s)) for r, s in zip(rows, samples)]
    inputs_text, _ = grpo_batch(text_rows, samples)
    assert trainer.calculate_rewards(inputs_text, completions, [[1]] * len(inputs))[0] == strict


def test_grpo_trainer_on_structtest_generates_jsonl_rows(samples):
    # A dataset loaded from `structtest generate`'s JSONL (load_dataset("json")), its
    # "messages" renamed "prompt" as TRL wants: the columns are the sample.
    rows = []
    for r in arrow_rows(samples):
        r = dict(r)
        r["prompt"] = r.pop("messages")
        rows.append(r)
    assert any(None in r["context"].values() for r in rows)  # Arrow's union of the keys
    inputs, completions = grpo_batch(rows, samples)
    trainer = replay_trl.GRPORewards(structtest.trl_reward())
    assert trainer.calculate_rewards(inputs, completions, [[1]] * len(inputs)) == [[1.0, 0.0] * len(samples)]
    # The prompt is what strict reads: another prompt, another verdict for the same text.
    s = next(x for x in samples if x["domain"] == "math")
    other = next(x for x in samples if x["domain"] == "math" and x["id"] != s["id"])
    row = dict(arrow_rows([s])[0])
    row.pop("messages")
    row["prompt"] = other["messages"]
    assert trainer.calculate_rewards([row], [answer(s)], [[1]])[0] == [
        structtest.reward(dict(s, messages=other["messages"]), answer(s))]
    # The prompt in TRL's standard format (text), and the messages column kept too.
    row["prompt"] = s["messages"][0]["content"]
    assert trainer.calculate_rewards([row], [answer(s)], [[1]])[0] == [1.0]
    row["messages"] = s["messages"]
    row["prompt"] = "something else"
    assert trainer.calculate_rewards([row], [answer(s)], [[1]])[0] == [1.0]


def test_rows_without_a_sample_give_none(samples):
    # A multi-task dataset: rows of another task have no sample (None in the column).
    mixed = arrow_rows([{"prompt": s["messages"], "sample": s} for s in samples[:2]] +
                       [{"prompt": [{"role": "user", "content": "2+2?"}], "solution": "4"}])
    inputs, completions = grpo_batch(mixed, samples[:2] + [None])
    trainer = replay_trl.GRPORewards(structtest.trl_reward())
    rewards = trainer.calculate_rewards(inputs, completions, [[1]] * len(inputs))[0]
    assert rewards[:4] == [1.0, 0.0, 1.0, 0.0] and all(math.isnan(r) for r in rewards[4:])
    # The same with the sample's own columns: a row whose subtask is None has none.
    jsonl = arrow_rows([dict(s) for s in samples[:2]] + [{"messages": [{"role": "user", "content": "2+2?"}]}])
    for r in jsonl:
        r["prompt"] = r.pop("messages")
    inputs, completions = grpo_batch(jsonl, samples[:2] + [None])
    rewards = trainer.calculate_rewards(inputs, completions, [[1]] * len(inputs))[0]
    assert rewards[:4] == [1.0, 0.0, 1.0, 0.0] and all(math.isnan(r) for r in rewards[4:])
    # No sample anywhere: a dataset for another task, named as such.
    with pytest.raises(KeyError, match="neither a column 'sample'.*columns passed: solution"):
        structtest.trl_reward()(["x"], prompts=["2+2?"], solution=["4"])
    with pytest.raises(ValueError, match="4 completions but 3 values of column 'sample'"):
        structtest.trl_reward()(["x"] * 4, sample=samples[:3])
    with pytest.raises(ValueError, match="^sample 1: "):
        structtest.trl_reward()(["x", "y"], sample=[None, dict(samples[0], subtask="nope")])


def test_trl_logs_rule_pass_rates_and_failing_rules(samples):
    f = structtest.trl_reward()
    trainer = replay_trl.GRPORewards([f, structtest.trl_reward(rules="paper")])
    rows = arrow_rows([{"prompt": s["messages"], "sample": s} for s in samples] +
                      [{"prompt": [{"role": "user", "content": "2+2?"}], "solution": "4"}])
    inputs, completions = grpo_batch(rows, samples + [None])
    trainer.calculate_rewards(inputs, completions, [[1]] * len(inputs))
    first = dict(trainer._pending_metrics)
    trainer.flush_logs()
    # A batch of other subtasks logs the same metric names (TRL gathers each name across
    # processes, in sorted order: every process must log the same ones).
    others = structtest.generate(seed=12, tasks=["questions", "add_print_statements"], limit=1)
    inputs2, completions2 = grpo_batch([{"prompt": s["messages"], "sample": s} for s in others], others)
    trainer.calculate_rewards(inputs2, completions2, [[1]] * len(inputs2))
    assert sorted(trainer._pending_metrics) == sorted(first)
    trainer.flush_logs()

    strict_rules = sorted({r for t in structtest.subtasks() for r in t["strict_rules"]})
    names = ["structtest_strict/passed"] + ["structtest_strict/rules/" + r for r in strict_rules]
    assert set(names) <= set(trainer.metrics)
    assert any(n.startswith("structtest_paper/rules/") for n in trainer.metrics)
    verdicts = [structtest.score(s, c, rules="strict")
                for s, c in zip(grpo_batch(samples, samples)[0], completions)]
    scored = len(verdicts)
    assert trainer.metrics["structtest_strict/passed"][0] == 0.5
    for rule in strict_rules:
        held = sum(1 for v in verdicts for n, r, _ in v.checks if n == rule and r == "pass")
        assert trainer.metrics["structtest_strict/rules/" + rule][0] == held / scored, rule
    assert 0 < trainer.metrics["structtest_strict/rules/answer-line"][0] < 0.5
    # One failing rule per completion: "" when it passed, None where no sample.
    failed = trainer.extra["structtest_strict/failed_rule"][:len(inputs)]
    assert failed[0::2][:len(samples)] == [""] * len(samples)
    assert failed[-2:] == [None, None]
    for v, rule in zip(verdicts[1::2], failed[1::2]):
        assert rule and v.reason.startswith(rule + ":"), (rule, v.reason)


def test_trl_reward_pickles_and_scores_after(samples):
    funcs = [structtest.trl_reward(), structtest.trl_reward(rules="paper", partial=True, threads=2)]
    copies = pickle.loads(pickle.dumps(funcs))
    assert [c.__name__ for c in copies] == ["structtest_strict", "structtest_paper_partial"]
    batch = [{"prompt": s["messages"], "sample": s} for s in samples]
    inputs, completions = grpo_batch(batch, samples)
    assert replay_trl.GRPORewards(copies).calculate_rewards(inputs, completions, [[1]] * len(inputs)) == \
        replay_trl.GRPORewards(funcs).calculate_rewards(inputs, completions, [[1]] * len(inputs))


def test_async_grpo_pickles_the_rewards_into_its_rollout_child(samples):
    funcs = [structtest.trl_reward(), structtest.trl_reward(partial=True)]
    groups = []
    for s in samples[:3]:
        row = {"prompt": s["messages"], "sample": json.dumps(s), "id": s["id"]}
        kwargs = replay_trl.group_reward_kwargs(row, 2)
        groups.append(([s["messages"]] * 2, [answer(s), "no"], [[1], [2]], kwargs))
    names, scored = replay_trl.score_in_spawned_child(funcs, groups)
    assert names == ["structtest_strict", "structtest_strict_partial"]
    for (prompts, completions, _, kwargs), (strict, partial) in zip(groups, scored):
        assert strict == [1.0, 0.0]
        assert partial == funcs[1](completions, prompts=prompts, **kwargs)
    # A closure does not get through TRL's check; ours does.
    with pytest.raises(TypeError, match="must be picklable"):
        replay_trl.async_worker_start_check({"reward_funcs": [lambda completions, **kw: [0.0]]})


# --- docs/python-and-rl.md ---------------------------------------------------------------

PAGE = "docs/python-and-rl.md"


def doc_block(language, containing):
    """The first ```LANGUAGE block of docs/python-and-rl.md that contains CONTAINING."""
    return docs_text.block(docs_text.page(PAGE), language, containing, PAGE)


class StandInDataset:
    """datasets.Dataset as far as docs/python-and-rl.md uses it: from_list (with Arrow's union of
    the keys of dict columns), rename_column, len and rows by index."""

    def __init__(self, rows):
        self.rows = rows

    @classmethod
    def from_list(cls, rows):
        return cls(arrow_rows(rows))

    def rename_column(self, old, new):
        return StandInDataset([{(new if k == old else k): v for k, v in row.items()} for row in self.rows])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


class StandInGRPOConfig:
    def __init__(self, output_dir, reward_weights=None, **kwargs):
        self.output_dir, self.reward_weights = output_dir, reward_weights


class StandInGRPOTrainer:
    """trl.GRPOTrainer as far as the rewards go (replay_trl.GRPORewards): train() scores
    one generation batch, two prompts of each subtask, two completions a prompt (its
    reference answer and a wrong one), flushes the logs, and checks that the reward
    functions pickle as async GRPO needs."""

    def __init__(self, model, reward_funcs, args, train_dataset):
        self.rewards = replay_trl.GRPORewards(reward_funcs, args.reward_weights)
        self.train_dataset = train_dataset

    def train(self):
        rows, taken = [], {}
        for i in range(len(self.train_dataset)):
            row = self.train_dataset[i]
            taken[row["subtask"]] = taken.get(row["subtask"], 0) + 1
            if taken[row["subtask"]] <= 2:
                rows.append(row)
        self.inputs, self.completions = [], []
        for row in rows:
            self.inputs += [row, row]
            self.completions += [row["target"]["answer"], "I would rather not."]
        self.result = self.rewards.calculate_rewards(self.inputs, self.completions,
                                                     [[1]] * len(self.inputs))
        self.rewards.flush_logs()
        replay_trl.async_worker_start_check({"reward_funcs": self.rewards.reward_funcs})


def test_the_grpo_script_runs(monkeypatch, tmp_path):
    import types
    script = doc_block("python", "trainer.train()")
    trl = types.ModuleType("trl")
    trl.GRPOConfig, trl.GRPOTrainer = StandInGRPOConfig, StandInGRPOTrainer
    datasets = types.ModuleType("datasets")
    datasets.Dataset = StandInDataset
    monkeypatch.setitem(sys.modules, "trl", trl)
    monkeypatch.setitem(sys.modules, "datasets", datasets)
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(compile(script, PAGE + " (GRPO with TRL)", "exec"), scope)
    trainer = scope["trainer"]
    assert trainer.rewards.reward_func_names == ["structtest_strict", "structtest_paper"]
    assert {row["subtask"] for row in trainer.inputs} == {t["name"] for t in structtest.subtasks()}
    strict, paper = trainer.result
    assert strict == [1.0, 0.0] * (len(trainer.inputs) // 2)
    assert paper[0::2] == [1.0] * (len(trainer.inputs) // 2)
    assert trainer.rewards.metrics["structtest_strict/passed"] == [0.5]
    assert len(trainer.rewards.extra["structtest_paper/failed_rule"]) == len(trainer.inputs)


def test_the_verl_set_up_runs(monkeypatch, tmp_path):
    data = doc_block("python", "reward_model")
    command = doc_block("sh", "verl.trainer.main_ppo")
    monkeypatch.chdir(tmp_path)
    exec(compile(data, PAGE + " (verl)", "exec"), {})
    # The command line's overrides, $PWD the checkout, build/ the folder this structtest
    # was built in.
    build = os.path.dirname(os.path.dirname(os.path.dirname(PACKAGE_INIT)))
    words = command.replace("\\\n", " ").replace("$PWD/build", build).split()
    overrides = dict(w.split("=", 1) for w in words[words.index("verl.trainer.main_ppo") + 1:])
    assert os.path.normpath(overrides["custom_reward_function.path"]) == os.path.normpath(PACKAGE_INIT)
    manager = {"batch": replay_verl.batch_reward_manager,
               "naive": replay_verl.naive_reward_manager}[overrides["reward_model.reward_manager"]]
    for files in ("data.train_files", "data.val_files"):
        rows = [json.loads(line) for line in open(overrides[files], encoding="utf-8")]
        rows = rows[::len(rows) // 30]
        truths = [json.loads(row["reward_model"]["ground_truth"]) for row in rows]
        responses = [answer(t) if i % 2 else "Nothing." for i, t in enumerate(truths)]
        for loader in ("current", "before-852f5fdf7"):
            got = verl_in_a_child(loader, overrides["custom_reward_function.path"],
                                  overrides["custom_reward_function.name"], rows, responses)
            assert got["rewards"] == [float(i % 2) for i in range(len(rows))], (files, loader)
            assert got["extra"]["failed_rule"][1::2] == [""] * (len(rows) // 2)
