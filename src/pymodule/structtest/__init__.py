"""structtest from Python: generate StructTest samples, score responses under the paper
or strict rules, and use the verdicts as rewards.

    import structtest
    samples = structtest.generate(seed=1, tasks=["math"], limit=2)
    v = structtest.score(samples[0], "The answer is 42.", rules="strict")
    v.passed, v.reason

A sample is the dict `structtest generate` writes (one JSONL line); scoring takes the
same dicts, so samples from a file (json.loads of each line) work alike. The checks run
in C++ (structtest._core); score_batch releases the GIL and uses every core. The rewards
(reward, trl_reward, verl_compute_score, verl_compute_score_batch) are in _rewards.py.

This file may also be executed on its own, under a name of the caller's choosing: verl
loads custom_reward_function.path with spec_from_file_location, as "custom_module" (and
registered in sys.modules) before its commit 852f5fdf7, under a generated name (and not
registered) since. A relative import would fail there, or load the C++ extension a
second time under another name; so such a load imports the package under its own name
from this folder and takes its names.
"""
import os
import sys

__all__ = ["Verdict", "generate", "score", "score_batch", "subtasks", "split_thinking",
           "reward", "trl_reward", "TrlReward", "verl_compute_score", "verl_compute_score_batch"]


def _imported_as_the_package():
    folder = os.path.basename(os.path.dirname(os.path.abspath(__file__)))
    module = sys.modules.get(__name__)
    return (__name__.rpartition(".")[2] == folder and module is not None
            and module.__dict__ is globals())


def _the_package():
    """The package this file belongs to, imported under its folder's name (once: a
    package of that name imported from another folder is an ImportError, not a second
    copy)."""
    import importlib.util
    here = os.path.abspath(__file__)
    folder = os.path.dirname(here)
    name = os.path.basename(folder)
    package = sys.modules.get(name)
    if package is not None:
        theirs = getattr(package, "__file__", None) or ""
        if os.path.realpath(theirs) != os.path.realpath(here):
            raise ImportError("{}: the module {!r} is already imported from {}".format(
                here, name, theirs or "somewhere else"))
        return package
    spec = importlib.util.spec_from_file_location(name, here, submodule_search_locations=[folder])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        del sys.modules[name]
        raise
    return package


if _imported_as_the_package():
    from ._core import __version__  # noqa: F401 (structtest/version.h's, as `structtest --version`)
    from ._scoring import Verdict, generate, score, score_batch, subtasks, split_thinking  # noqa: F401
    from ._rewards import (reward, trl_reward, TrlReward, verl_compute_score,  # noqa: F401
                           verl_compute_score_batch)
else:
    globals().update({_name: getattr(_the_package(), _name) for _name in __all__ + ["__version__"]})
