"""The verdicts as rewards: reward() for any training loop, TrlReward (trl_reward()) for
TRL's GRPOTrainer, verl_compute_score and verl_compute_score_batch for verl's reward
managers. tests/test_structtest.py calls each one as its trainer does, naming the
trainer's file and commit.

Every adapter scores the answer after the reasoning (split_thinking) under strict by
default: strict closes the loopholes a policy finds, the paper rules do not. The reward
is binary (1.0 or 0.0) by default: a sample passes only when every rule holds.
partial=True gives Verdict.score instead (rules passed / rules listed), which a policy
can farm: the built-in loophole answers, which do none of the tasks, earn 0.5-0.8 of it
on most subtasks under strict (README, "Python and RL").
"""
from ._scoring import _check_rules, _response_text, _verdicts, score, split_thinking, subtasks

# A sample's fields as `structtest generate` writes them: a dataset loaded from its JSONL
# has them as columns (TRL passes "messages" as `prompts` once it is renamed "prompt").
SAMPLE_FIELDS = ("id", "domain", "subtask", "messages", "params", "context", "target")


def _reward_value(verdict, partial):
    return verdict.score if partial else (1.0 if verdict.passed else 0.0)


def _failed_rule(verdict):
    """The name of the rule that failed ("" when the verdict passed): the first failed
    check (the rules after it were not checked)."""
    if verdict.passed:
        return ""
    for name, result, _ in verdict.checks:
        if result == "fail":
            return name
    return verdict.reason.partition(":")[0]


def _completion_text(completion, where):
    # TRL's conversational format: a list of messages, the answer the last one's content.
    if isinstance(completion, list):
        if not completion or not isinstance(completion[-1], dict) or "content" not in completion[-1]:
            raise TypeError("{}: expected a str or a list of messages with 'content'".format(where))
        completion = completion[-1]["content"]
    return split_thinking(_response_text(completion, where))[0]


def _without_nulls(value):
    """`value` without the dict keys whose value is None, at any depth. A dataset stores a
    column of dicts (Arrow's struct) with the keys of every row, a row's missing ones as
    None; no sample holds a null, so dropping them gives back the sample."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _check_partial(partial):
    if not isinstance(partial, bool):
        raise TypeError("partial: expected True or False, got {}".format(type(partial).__name__))


def _check_threads(threads):
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise ValueError("threads={!r}: expected 0 (every core) or more".format(threads))


def reward(sample, completion, rules="strict", partial=False):
    """1.0 when `completion` (its answer after any <think> block) passes `sample`'s rules,
    else 0.0; with partial=True, the share of the rules it passes."""
    _check_partial(partial)
    return _reward_value(score(sample, _completion_text(completion, "completion"), rules), partial)


_RULE_NAMES = {}


def _rule_names(rules):
    """Every rule name of the rule set, over all subtasks, sorted."""
    if rules not in _RULE_NAMES:
        _RULE_NAMES[rules] = sorted({r for t in subtasks() for r in t[rules + "_rules"]})
    return _RULE_NAMES[rules]


class TrlReward:
    """A reward function for TRL's GRPOTrainer (reward_funcs=[...]), made by trl_reward().
    A class, not a closure, so that it pickles: TRL's async GRPO pickles reward_funcs for
    its rollout process. Its __name__ is the name TRL logs its rewards under:
    structtest_<rules>, then _partial with partial credit and _<column> for a column
    other than "sample" (structtest_strict, structtest_strict_partial, structtest_paper,
    ...), or `name`."""

    def __init__(self, rules="strict", column="sample", threads=0, partial=False, name=None):
        _check_rules(rules)
        _check_partial(partial)
        _check_threads(threads)
        if not isinstance(column, str):
            raise TypeError("column: expected a column name, got {}".format(type(column).__name__))
        self.rules = rules
        self.column = column
        self.threads = threads
        self.partial = partial
        self.__name__ = name or "structtest_{}{}{}".format(
            rules, "_partial" if partial else "", "" if column == "sample" else "_" + column)

    def __repr__(self):
        return "TrlReward(rules={!r}, column={!r}, threads={}, partial={}, name={!r})".format(
            self.rules, self.column, self.threads, self.partial, self.__name__)

    def __call__(self, completions, prompts=None, log_metric=None, log_extra=None, **columns):
        """One reward per completion: None for a row without a structtest sample (TRL's
        convention for a reward that does not apply; it reads it as NaN). The sample is
        the row's `column` (a dict or its JSON text) or, when the dataset has no such
        column, the row's own columns (structtest generate's fields, the prompt as
        `messages`). With log_metric, logs <name>/passed and <name>/rules/<rule>: the
        share of the scored completions that pass, and that hold each rule of the rule
        set (a rule not checked, or not the sample's, is not held: TRL wants the same
        names from every process); with log_extra, the column <name>/failed_rule."""
        samples = self._samples(len(completions), prompts, columns)
        rows = [i for i, s in enumerate(samples) if s is not None]
        answers = [_completion_text(completions[i], "completion {}".format(i)) for i in rows]
        verdicts = _verdicts([samples[i] for i in rows], answers, self.rules, self.threads, "sample",
                             indices=rows)
        rewards = [None] * len(completions)
        for i, v in zip(rows, verdicts):
            rewards[i] = _reward_value(v, self.partial)
        if log_metric is not None:
            self._log_metrics(verdicts, log_metric)
        if log_extra is not None:
            failed = [None] * len(completions)
            for i, v in zip(rows, verdicts):
                failed[i] = _failed_rule(v)
            log_extra(self.__name__ + "/failed_rule", failed)
        return rewards

    def _samples(self, n, prompts, columns):
        """The sample of each row, None where the row has none."""
        def values(column):
            found = columns[column]
            if len(found) != n:
                raise ValueError("{} completions but {} values of column {!r}".format(
                    n, len(found), column))
            return found

        if self.column in columns:
            return [_without_nulls(s) if isinstance(s, dict) else s for s in values(self.column)]
        if "subtask" not in columns:
            raise KeyError("the dataset has neither a column {!r} with the structtest samples nor "
                           "their fields as columns (columns passed: {})".format(
                               self.column, ", ".join(sorted(columns)) or "none"))
        fields = {f: values(f) for f in SAMPLE_FIELDS if f in columns}
        if "messages" not in fields and prompts is not None:
            if len(prompts) != n:
                raise ValueError("{} completions but {} prompts".format(n, len(prompts)))
            # TRL's standard format has the prompt as text, its conversational one as messages.
            fields["messages"] = [[{"role": "user", "content": p}] if isinstance(p, str) else p
                                  for p in prompts]
        samples = []
        for i in range(n):
            if fields["subtask"][i] is None:
                samples.append(None)
                continue
            samples.append(_without_nulls({f: v[i] for f, v in fields.items()}))
        return samples

    def _log_metrics(self, verdicts, log_metric):
        scored = max(len(verdicts), 1)
        held = dict.fromkeys(_rule_names(self.rules), 0)
        for v in verdicts:
            for name, result, _ in v.checks:
                if result == "pass" and name in held:
                    held[name] += 1
        log_metric(self.__name__ + "/passed", sum(1 for v in verdicts if v.passed) / scored)
        for name, count in held.items():
            log_metric("{}/rules/{}".format(self.__name__, name), count / scored)


def trl_reward(rules="strict", column="sample", threads=0, partial=False, name=None):
    """A reward function for TRL's GRPOTrainer (reward_funcs=[...]): TrlReward, called as
    f(prompts=, completions=, completion_ids=, **columns) with the dataset's columns, one
    value per completion. `column` holds each prompt's structtest sample (a dict or its
    JSON text); without that column, the rows' own columns are the samples (a dataset
    loaded from `structtest generate`'s JSONL, "messages" renamed "prompt")."""
    return TrlReward(rules=rules, column=column, threads=threads, partial=partial, name=name)


def _verl_result(verdict, partial):
    # verl keeps every key of a dict result (reward_extra_info): means of the numbers in
    # its validation metrics, the strings in its dumped generations.
    return {"score": _reward_value(verdict, partial), "acc": 1.0 if verdict.passed else 0.0,
            "failed_rule": _failed_rule(verdict)}


def _verl_sample(ground_truth):
    return _without_nulls(ground_truth) if isinstance(ground_truth, dict) else ground_truth


def verl_compute_score(data_source, solution_str, ground_truth, extra_info=None, rules="strict",
                       partial=False, **kwargs):
    """verl's custom reward function (custom_reward_function.name=verl_compute_score), for
    its naive and DAPO reward managers: `ground_truth` is the structtest sample (a dict or
    its JSON text, as stored in the dataset's reward_model.ground_truth), `solution_str`
    the decoded response. Returns {"score": the reward, "acc": 1.0 when it passed, else
    0.0, "failed_rule": the rule that failed, "" when it passed}. rules and partial can be
    set with custom_reward_function.reward_kwargs."""
    _check_partial(partial)
    answer = _completion_text(solution_str, "solution_str")
    return _verl_result(score(_verl_sample(ground_truth), answer, rules), partial)


def verl_compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None,
                             rules="strict", partial=False, threads=0, **kwargs):
    """verl's batch reward manager's function (reward_model.reward_manager=batch,
    custom_reward_function.name=verl_compute_score_batch): verl_compute_score's result for
    each response, scored together by score_batch (on every core unless `threads`)."""
    _check_partial(partial)
    _check_threads(threads)
    solution_strs = list(solution_strs)
    ground_truths = list(ground_truths)
    if len(solution_strs) != len(ground_truths):
        raise ValueError("{} solution_strs but {} ground_truths: one sample per response".format(
            len(solution_strs), len(ground_truths)))
    answers = [_completion_text(s, "solution_strs[{}]".format(i)) for i, s in enumerate(solution_strs)]
    verdicts = _verdicts([_verl_sample(g) for g in ground_truths], answers, rules, threads,
                         "ground_truths")
    return [_verl_result(v, partial) for v in verdicts]
