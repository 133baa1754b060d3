"""The composed suite from Python (issue 52): structtest.generate(suite="composed",
rules_per_sample=K) gives what `structtest generate --suite composed` writes, and its
samples score like any others (the reference answers pass, every rule is a check)."""
import json
import os
import subprocess

import pytest

import structtest

BINARY = os.environ.get("STRUCTTEST_BINARY", "")
needs_binary = pytest.mark.skipif(not os.path.exists(BINARY),
                                  reason="STRUCTTEST_BINARY does not name the structtest binary")


@pytest.mark.parametrize("k", [1, 4, 8])
def test_composed_samples_have_k_rules_and_their_answers_pass(k):
    samples = structtest.generate(suite="composed", seed=2, rules_per_sample=k, limit=5)
    assert len(samples) == 20
    assert {s["subtask"] for s in samples} == {"summarization_composed_k{}".format(k),
                                               "math_composed_k{}".format(k),
                                               "html_composed_k{}".format(k),
                                               "code_composed_k{}".format(k)}
    answers = [s["target"]["answer"] for s in samples]
    for rules in ("paper", "strict"):
        verdicts = structtest.score_batch(samples, answers, rules=rules)
        assert all(v.passed for v in verdicts), [v.reason for v in verdicts if not v.passed]
        for sample, verdict in zip(samples, verdicts):
            ids = [r["id"] for r in sample["params"]["rules"]]  # checks: (name, result, detail)
            assert [c[0] for c in verdict.checks][:k] == ids


def test_composed_difficulty_and_bad_dials():
    hard = structtest.generate(suite="composed", difficulty="hard", limit=1)
    assert len(hard[0]["params"]["rules"]) == 6
    with pytest.raises(ValueError, match="rules_per_sample=9"):
        structtest.generate(suite="composed", rules_per_sample=9)
    with pytest.raises(ValueError, match="only the composed suite"):
        structtest.generate(rules_per_sample=2)


@needs_binary
def test_composed_matches_the_cli(tmp_path):
    out = tmp_path / "c.jsonl"
    r = subprocess.run([BINARY, "generate", "--suite", "composed", "--rules-per-sample", "5",
                        "--seed", "4", "--limit", "6", "--out", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    mine = structtest.generate(suite="composed", rules_per_sample=5, seed=4, limit=6)
    assert mine == [json.loads(line) for line in out.read_text().splitlines()]
