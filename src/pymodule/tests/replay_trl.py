"""TRL's calls of reward functions, replayed: our code taking the steps that TRL's code
takes, read from github.com/huggingface/trl at f2cd57710ae345ea6428ae95363267fcf38a3dc8
(2026-07-24). Each function names the file and lines it replays. TRL is not installed
here (nor torch): rewards are lists where TRL has tensors, NaN where it has NaN."""
import asyncio
import inspect
import functools
import multiprocessing
import pickle
from collections import defaultdict

TRL_COMMIT = "f2cd57710ae345ea6428ae95363267fcf38a3dc8"


def get_callable_name(func):
    """trl/trainer/utils.py get_callable_name (lines 224-232): the name TRL logs a reward
    function's rewards under (rewards/<name>/mean)."""
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", type(func).__name__)


class GRPORewards:
    """GRPOTrainer's reward functions, as trl/trainer/grpo_trainer.py calls them: the
    names (__init__, lines 506-536, reward_weights checked against reward_funcs), the
    call (_calculate_rewards, lines 1611-1664: every column but prompt, completion and
    completion_ids as a list over the batch, trainer_state, log_extra and log_metric;
    prompts, completions and completion_ids by name; None read as NaN), the log callbacks
    (_log_completion_extra and _log_metric, lines 1586-1609) and their flush at the end of
    _generate_and_score_completions (lines 2759-2773: columns and metrics in sorted
    order, a metric the mean of the values logged)."""

    def __init__(self, reward_funcs, reward_weights=None):
        if not isinstance(reward_funcs, list):
            reward_funcs = [reward_funcs]
        self.reward_funcs = reward_funcs
        self.reward_func_names = [get_callable_name(f) for f in reward_funcs]
        if reward_weights is not None and len(reward_weights) != len(reward_funcs):
            raise ValueError("Number of reward weights ({}) must match number of reward functions ({})"
                             .format(len(reward_weights), len(reward_funcs)))
        self.state = object()  # a transformers.TrainerState in TRL
        self._pending_extra_logs = defaultdict(list)
        self._pending_metrics = defaultdict(list)
        self.metrics = defaultdict(list)
        self.extra = defaultdict(list)

    def _log_completion_extra(self, column, values):
        self._pending_extra_logs[column].extend(values)

    def _log_metric(self, name, value):
        self._pending_metrics[name].append(value)

    def calculate_rewards(self, inputs, completions, completion_ids_list):
        """One list of rewards per reward function. `inputs` are the batch's dataset rows
        (each prompt's row repeated once per generation)."""
        prompts = [x["prompt"] for x in inputs]  # _generate_and_score_completions, line 2274
        keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
        reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
        reward_kwargs["trainer_state"] = self.state
        reward_kwargs["log_extra"] = self._log_completion_extra
        reward_kwargs["log_metric"] = self._log_metric
        rewards_per_func = []
        for reward_func in self.reward_funcs:
            assert not inspect.iscoroutinefunction(reward_func)
            output = reward_func(prompts=prompts, completions=completions,
                                 completion_ids=completion_ids_list, **reward_kwargs)
            rewards_per_func.append([r if r is not None else float("nan") for r in output])
        return rewards_per_func

    def flush_logs(self):
        for column in sorted(self._pending_extra_logs):
            self.extra[column].extend(self._pending_extra_logs[column])
        self._pending_extra_logs.clear()
        for name in sorted(self._pending_metrics):
            values = self._pending_metrics[name]
            self.metrics[name].append(sum(values) / len(values))
        self._pending_metrics.clear()


def async_worker_start_check(loop_kwargs):
    """trl/experimental/async_grpo/async_rollout_worker.py AsyncRolloutWorker.start (lines
    973-986): the kwargs for the rollout loop (reward_funcs among them) are pickled before
    the child is spawned, and a failure is a TypeError."""
    try:
        pickle.dumps(loop_kwargs)
    except (pickle.PicklingError, AttributeError, TypeError) as e:
        raise TypeError("AsyncRolloutWorker forwards reward_funcs / tools / environment_factory to a "
                        "spawned child process, so they must be picklable.") from e


def group_reward_kwargs(row, num_generations):
    """async_rollout_worker.py, the rollout loop (lines 538-543): a group's reward kwargs,
    every column of the prompt's row but prompt, completion and completion_ids, repeated
    once per generation."""
    return {key: [row[key]] * num_generations for key in row
            if key not in {"prompt", "completion", "completion_ids"}}


async def _score_group(reward_funcs, prompts, completions, completion_ids, reward_kwargs):
    # async_rollout_worker.py _AsyncRolloutLoop._score_group (lines 798-811): each reward
    # function called by keyword in a thread of its own, all at once.
    kwargs = dict(completions=completions, prompts=prompts, completion_ids=completion_ids, **reward_kwargs)
    return await asyncio.gather(*[
        reward_func(**kwargs) if inspect.iscoroutinefunction(reward_func)
        else asyncio.to_thread(reward_func, **kwargs)
        for reward_func in reward_funcs])


def _child_main(loop_kwargs, groups, results):
    # The spawned child: its kwargs arrive pickled (multiprocessing's spawn), as TRL's
    # _child_main receives _loop_kwargs (lines 987-1000).
    try:
        names = [get_callable_name(f) for f in loop_kwargs["reward_funcs"]]
        scored = [asyncio.run(_score_group(loop_kwargs["reward_funcs"], *group)) for group in groups]
        results.put(("ok", names, scored))
    except BaseException as e:  # reported to the parent, which fails the test with it
        results.put(("error", repr(e), None))


def score_in_spawned_child(reward_funcs, groups, timeout=120):
    """The reward functions pickled into a child started with multiprocessing's spawn
    context (as AsyncRolloutWorker.start does, line 942) and called there as _score_group
    calls them; groups: (prompts, completions, completion_ids, reward_kwargs) each.
    Returns (the names get_callable_name gives in the child, one list of rewards per
    function per group)."""
    loop_kwargs = {"reward_funcs": reward_funcs}
    async_worker_start_check(loop_kwargs)
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    child = ctx.Process(target=_child_main, args=(loop_kwargs, groups, results))
    child.start()
    try:
        status, names, scored = results.get(timeout=timeout)
    finally:
        child.join(timeout)
    if status != "ok":
        raise AssertionError("the rollout child failed: {}".format(names))
    return names, scored
