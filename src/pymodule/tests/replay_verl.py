"""verl's calls of a custom reward function, replayed: our code taking the steps that
verl's code takes, read from github.com/volcengine/verl at
b178a3cd56f58b2d502255daba591e92833930a7 (2026-01-29) and, for the loader that commit
852f5fdf7 replaced, at its parent 809ae51204e895c343d2534fc82d61e065fd3385. Each function
names the file and lines it replays. verl is not installed here (nor torch); where verl
holds numpy object arrays (DataProto.non_tensor_batch) the replay does too when numpy is
there."""
import importlib
import importlib.util
import os
import sys
from collections import defaultdict
from functools import partial

VERL_COMMIT = "b178a3cd56f58b2d502255daba591e92833930a7"
VERL_BEFORE_852F5FDF7 = "809ae51204e895c343d2534fc82d61e065fd3385"

try:
    import numpy
except ImportError:  # numpy is optional here; verl always has it
    numpy = None


def _object_array(values):
    if numpy is None:
        return list(values)
    array = numpy.empty(len(values), dtype=object)
    array[:] = values
    return array


def call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
    """verl/trainer/ppo/reward.py _call_with_kwargs (lines 42-48): the config's
    reward_kwargs over the call's."""
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


def load_module(module_path):
    """verl/utils/import_utils.py load_module (lines 87-139), as load_extern_object calls
    it (no module_name): pkg:// imports the package; a file is executed under a generated
    name, "custom_module_<hash of its path>", and NOT registered in sys.modules."""
    if module_path.startswith("pkg://"):
        return importlib.import_module(module_path[len("pkg://"):].replace("/", "."))
    if module_path.startswith("file://"):
        module_path = module_path[len("file://"):]
    if not os.path.exists(module_path):
        raise FileNotFoundError("Custom module file not found: module_path={!r}".format(module_path))
    spec = importlib.util.spec_from_file_location(
        "custom_module_{}".format(hash(os.path.abspath(module_path))), module_path)
    if spec is None or spec.loader is None:
        raise ImportError("Could not load module from module_path={!r}".format(module_path))
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise RuntimeError("Error loading module from module_path={!r}".format(module_path)) from e
    return module


def get_custom_reward_fn(path, name, reward_kwargs=None):
    """verl/trainer/ppo/reward.py get_custom_reward_fn (lines 60-94) with
    import_utils.load_extern_object (lines 184-197)."""
    module = load_module(path)
    if not hasattr(module, name):
        raise AttributeError("Object not found in module: object_name={!r}".format(name))
    return partial(call_with_kwargs, getattr(module, name), dict(reward_kwargs or {}))


def get_custom_reward_fn_before_852f5fdf7(path, name, reward_kwargs=None):
    """verl/trainer/ppo/reward.py get_custom_reward_fn at 809ae51 (lines 63-118): the
    file executed as "custom_module", registered in sys.modules before it runs, and
    reused when that name is already there."""
    module = sys.modules.get("custom_module", None)
    if module is None:
        if not os.path.exists(path):
            raise FileNotFoundError("Reward function file '{}' not found.".format(path))
        spec = importlib.util.spec_from_file_location("custom_module", path)
        module = importlib.util.module_from_spec(spec)
        try:
            sys.modules["custom_module"] = module
            spec.loader.exec_module(module)
        except Exception as e:
            raise RuntimeError("Error loading module from '{}': {}".format(path, e)) from e
    if not hasattr(module, name):
        raise AttributeError("Reward function '{}' not found in '{}'.".format(name, module.__file__))
    return partial(call_with_kwargs, getattr(module, name), dict(reward_kwargs or {}))


def batch_reward_manager(compute_score, rows, responses, reward_fn_key="data_source", **reward_kwargs):
    """verl/workers/reward_manager/batch.py BatchRewardManager.verify (lines 47-78) and
    __call__ (80-126), the responses as decoded: one compute_score call for the batch
    with data_sources (the reward_fn_key column), solution_strs, ground_truths
    (reward_model.ground_truth) and extra_infos (each with rollout_reward_scores added);
    a dict result's "score" is the reward and all its keys go to reward_extra_info.
    Returns (rewards, reward_extra_info)."""
    data_sources = _object_array([row[reward_fn_key] for row in rows])
    ground_truths = [row["reward_model"].get("ground_truth", None) for row in rows]
    extras = _object_array([dict(row.get("extra_info", {})) for row in rows])
    for i in range(len(rows)):
        extras[i]["rollout_reward_scores"] = {}
    scores = compute_score(data_sources=data_sources, solution_strs=list(responses),
                           ground_truths=ground_truths, extra_infos=extras, **reward_kwargs)
    rewards, reward_extra_info = [], defaultdict(list)
    for i in range(len(rows)):
        _read_score(scores[i], rewards, reward_extra_info)
    return rewards, dict(reward_extra_info)


def _read_score(score, rewards, reward_extra_info):
    """How both reward managers read a score: a dict's "score" is the reward and every key
    goes to reward_extra_info; anything else is the reward itself."""
    if isinstance(score, dict):
        reward = score["score"]
        for key, value in score.items():
            reward_extra_info[key].append(value)
    else:
        reward = score
    rewards.append(reward)


def naive_reward_manager(compute_score, rows, responses, reward_fn_key="data_source"):
    """verl/workers/reward_manager/naive.py NaiveRewardManager.__call__ (lines 46-125):
    one call a response, with data_source, solution_str, ground_truth and extra_info
    (num_turns and rollout_reward_scores added), read as batch_reward_manager reads it."""
    rewards, reward_extra_info = [], defaultdict(list)
    for row, response in zip(rows, responses):
        extra_info = dict(row.get("extra_info", {}))
        extra_info["num_turns"] = None
        extra_info["rollout_reward_scores"] = {}
        score = compute_score(data_source=row[reward_fn_key], solution_str=response,
                              ground_truth=row["reward_model"]["ground_truth"], extra_info=extra_info)
        _read_score(score, rewards, reward_extra_info)
    return rewards, dict(reward_extra_info)
