"""`structtest serve` as the remote reward of OpenRLHF and slime, called as their own
code calls it: replay_openrlhf.py (OpenRLHF 3c3be6234e0cb353e76bb8019947db9dfe99fca7,
openrlhf/utils/agent.py and the files it names) and replay_slime.py (slime
624b824a898ab0ec1fcb4d373004c7f3852bf515, slime/rollout/rm_hub/__init__.py and the files it
names) post exactly the JSON the trainers post, with urllib, to the real binary
($STRUCTTEST_BINARY) on an ephemeral port. The rewards must equal structtest.reward's for
the same sample and answer. The OpenRLHF and slime command lines of docs/python-and-rl.md
are run the same way."""
import json
import os
import re
import shlex
import signal
import subprocess
import urllib.error
from types import SimpleNamespace

import pytest

import replay_openrlhf
import replay_slime
import structtest
from test_rl_trainers import PAGE, arrow_rows, doc_block

BINARY = os.environ.get("STRUCTTEST_BINARY", "")
pytestmark = pytest.mark.skipif(not os.path.exists(BINARY),
                                reason="STRUCTTEST_BINARY does not name the structtest binary")

TASKS = ["math", "html", "bullet_points", "replace_variables"]


class Server:
    """`structtest serve --port 0 ARGS`, stopped with SIGTERM."""

    def __init__(self, *args, env=None):
        self.process = subprocess.Popen([BINARY, "serve", "--port", "0", "--threads", "2", *args],
                                        stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, **(env or {})})
        self.line = self.process.stderr.readline()
        port = re.search(r"serving on http://127\.0\.0\.1:(\d+)", self.line)
        assert port, self.line
        self.base = "http://127.0.0.1:" + port.group(1)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, err
        return err


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def samples():
    found = structtest.generate(seed=3, split="train", tasks=TASKS, limit=2)
    assert {s["domain"] for s in found} == {"math", "html", "summarization", "code"}
    return found


def answer(sample):
    target = sample["target"]
    return target["answer"] if isinstance(target, dict) else target


def answers(sample):
    """A right answer (after a reasoning block, as a reasoning model writes it) and a wrong
    one."""
    return ["<think>Let me do what is asked.</think>\n\n" + answer(sample), "I would rather not."]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


# --- OpenRLHF ----------------------------------------------------------------------------------

def openrlhf_rows(samples, label_as_text):
    """A prompt dataset as OpenRLHF reads it with --data.input_key messages --data.label_key
    sample: the chat as the input, the structtest sample as the label, a dict or its JSON
    text; load_dataset("json") gives a dict column back as Arrow's struct (every row's keys,
    missing ones None)."""
    rows = [{"messages": s["messages"], "sample": json.dumps(s) if label_as_text else s}
            for s in samples]
    return arrow_rows(rows)


@pytest.mark.parametrize("label_as_text", [True, False], ids=["json-text", "struct-column"])
def test_openrlhf_single_turn_rewards_are_structtests(server, samples, label_as_text):
    tokenizer = replay_openrlhf.StandInTokenizer()
    url = server.base + "/get_reward"
    seen = 0
    for row, sample in zip(openrlhf_rows(samples, label_as_text), samples):
        prompt, label = replay_openrlhf.preprocess_data(
            row, input_key="messages", label_key="sample",
            apply_chat_template=tokenizer.apply_chat_template)
        for text in answers(sample):
            output = replay_openrlhf.single_turn_execute(prompt, label, text, tokenizer, [url])
            assert output["query"].endswith("<|im_end|>")  # decoded with its special tokens
            want = structtest.reward(sample, text)
            # One query a request: every list holds one value.
            assert output["reward"] == [want] and output["scores"] == [want], (sample["id"], text)
            assert output["extra_logs"]["structtest_pass"] == [want]
            info = replay_openrlhf.process_response_into_experience(output)
            assert info["reward"] == [[want]]
            assert set(info) == {"reward", "score", "structtest_pass", "structtest_rule_share"}
            seen += want == 1.0
    assert seen == len(samples)


def test_openrlhf_prompts_cut_from_the_left_still_score(server, samples):
    """A prompt over OpenRLHF's budget is cut from the left before the response is
    generated: the query then begins with the prompt's end."""
    tokenizer = replay_openrlhf.StandInTokenizer()
    sample = next(s for s in samples if s["domain"] == "summarization")
    prompt = tokenizer.apply_chat_template(sample["messages"])
    text = answer(sample)
    budget = len(tokenizer.encode(prompt)) // 2 + 400
    output = replay_openrlhf.single_turn_execute(prompt, json.dumps(sample), text, tokenizer,
                                                 [server.base + "/get_reward"],
                                                 max_length=budget, max_tokens=400)
    assert not output["query"].startswith(prompt[:50])
    assert output["reward"] == [structtest.reward(sample, text)] == [1.0]


def test_openrlhf_options_ride_in_the_url(server, samples):
    tokenizer = replay_openrlhf.StandInTokenizer()
    sample = next(s for s in samples if s["subtask"] == "math_easy")
    prompt = tokenizer.apply_chat_template(sample["messages"])
    bare = answer(sample).strip().splitlines()[-1]  # the answer line without the work
    for query, rules, partial in (("", "strict", False), ("?rules=paper", "paper", False),
                                  ("?partial=1", "strict", True)):
        output = replay_openrlhf.single_turn_execute(prompt, json.dumps(sample), bare, tokenizer,
                                                     [server.base + "/get_reward" + query])
        assert output["reward"] == [structtest.reward(sample, bare, rules=rules, partial=partial)]
    assert structtest.reward(sample, bare, rules="paper") == 1.0
    assert structtest.reward(sample, bare) == 0.0


def test_openrlhf_without_a_label_key_is_refused_naming_the_item(samples):
    """Without --data.label_key OpenRLHF sends "" as every label: 400, naming the label and
    the flag. OpenRLHF logs a failed reward at info level, with aiohttp's error, which
    names the status only, and trains on no reward: the server says why on its stderr."""
    server = Server()
    try:
        tokenizer = replay_openrlhf.StandInTokenizer()
        prompt, label = replay_openrlhf.preprocess_data({"input": "Say hi."}, input_key="input")
        assert label == ""
        with pytest.raises(urllib.error.HTTPError) as refused:
            replay_openrlhf.single_turn_execute(prompt, label, "hi", tokenizer,
                                                [server.base + "/get_reward"])
        assert refused.value.code == 400
        assert refused.value.headers["Structtest-Rules"] == "strict"
        error = ("labels[0]: empty: the label must hold the structtest sample, a JSON object or "
                 "its JSON text (OpenRLHF: --data.label_key; slime: --label-key)")
        assert json.load(refused.value)["error"] == error
    finally:
        err = server.stop()
    assert 'structtest: serve: POST /get_reward: 400 {"error":"' + error + '"}' in err, err


def test_openrlhf_batches_are_scored_in_order_and_errors_name_the_item(server, samples):
    """_fetch_rewards_via_http shards a list of queries over the endpoints: one request may
    hold many."""
    tokenizer = replay_openrlhf.StandInTokenizer()
    queries, prompts, labels, want = [], [], [], []
    for sample in samples:
        prompt = tokenizer.apply_chat_template(sample["messages"])
        for text in answers(sample):
            queries.append(prompt + text + "<|im_end|>")
            prompts.append(prompt)
            labels.append(json.dumps(sample))
            want.append(structtest.reward(sample, text))
    url = server.base + "/get_reward"
    replies = replay_openrlhf.fetch_rewards_via_http([url, url], queries, prompts, labels)
    assert [r for reply in replies for r in reply["rewards"]] == want
    assert all(reply["rules"] == "strict" for reply in replies)
    labels[5] = json.dumps({"id": "x", "domain": "math"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        replay_openrlhf.fetch_rewards_via_http([url], queries, prompts, labels)
    assert refused.value.code == 400
    assert json.load(refused.value)["error"] == (
        "labels[5]: not a structtest sample: missing field 'subtask'")


# --- slime ---------------------------------------------------------------------------------------

def test_slime_remote_rm_rewards_are_structtests(server, samples, tmp_path):
    path = tmp_path / "structtest_rl.jsonl"
    write_jsonl(path, [{"messages": s["messages"], "sample": s} for s in samples])
    tokenizer = replay_openrlhf.StandInTokenizer()
    rollouts = replay_slime.dataset_samples(str(path), prompt_key="messages", label_key="sample",
                                            apply_chat_template=tokenizer.apply_chat_template)
    number = replay_slime.args_for(server.base + "/slime/reward")
    details = replay_slime.args_for(server.base + "/slime/reward?details=1", reward_key="reward")
    for rollout, sample in zip(rollouts, samples):
        assert rollout.label == sample
        for text in answers(sample):
            want = structtest.reward(sample, text)
            rollout.response = text + "<|im_end|>"  # decoded without skipping special tokens
            rollout.reward = replay_slime.async_rm(number, rollout)
            assert rollout.reward == want and isinstance(rollout.reward, float)
            assert replay_slime.get_reward_value(rollout, number) == want
            rollout.reward = replay_slime.async_rm(details, rollout)
            assert replay_slime.get_reward_value(rollout, details) == want
            verdict = structtest.score(sample, structtest.split_thinking(text)[0], rules="strict")
            assert rollout.reward["pass"] == verdict.passed
            assert rollout.reward["rules"] == "strict"
            assert rollout.reward["score"] == verdict.score
            assert rollout.reward["rules_version"] == verdict.rules_version
            assert (rollout.reward["failed_rule"] == "") == verdict.passed
            assert [(c["name"], c["result"], c["detail"]) for c in rollout.reward["checks"]] == \
                verdict.checks


def test_slime_label_that_is_not_a_sample_is_refused(server, samples):
    rollout = SimpleNamespace(
        prompt="Q", response="4", label="4", metadata={}, reward=None)
    with pytest.raises(urllib.error.HTTPError) as refused:
        replay_slime.async_rm(replay_slime.args_for(server.base + "/slime/reward"), rollout)
    assert refused.value.code == 400
    assert json.load(refused.value)["error"].startswith(
        "label: JSON text of a number, not of an object: the label must hold the structtest sample")


# --- the bearer token ---------------------------------------------------------------------------

def test_with_a_token_the_reward_endpoints_need_it(samples):
    token = "reward-token-5d1c"
    server = Server(env={"STRUCTTEST_SERVE_TOKEN": token})
    try:
        sample = samples[0]
        args = replay_slime.args_for(server.base + "/slime/reward")
        rollout = SimpleNamespace(
            prompt="Q", response=answer(sample), label=sample, metadata={}, reward=None)
        tokenizer = replay_openrlhf.StandInTokenizer()
        prompt = tokenizer.apply_chat_template(sample["messages"])
        for headers in (None, {"Authorization": "Bearer " + token + "x"}):
            with pytest.raises(urllib.error.HTTPError) as refused:
                replay_slime.async_rm(args, rollout, headers=headers)
            assert refused.value.code == 401
            with pytest.raises(urllib.error.HTTPError) as refused:
                replay_openrlhf.single_turn_execute(prompt, sample, answer(sample), tokenizer,
                                                    [server.base + "/get_reward"], headers=headers)
            assert refused.value.code == 401
        good = {"Authorization": "Bearer " + token}
        assert replay_slime.async_rm(args, rollout, headers=good) == 1.0
        output = replay_openrlhf.single_turn_execute(prompt, sample, answer(sample), tokenizer,
                                                     [server.base + "/get_reward"], headers=good)
        assert output["reward"] == [1.0]
    finally:
        err = server.stop()
    assert token not in server.line + err


# --- docs/python-and-rl.md ----------------------------------------------------------------------

def command_flags(command, after):
    """The flags of the documented command line that runs `after`: {flag: value, or True}."""
    words = shlex.split(command.replace("\\\n", " "))
    words = words[words.index(after) + 1:]
    flags = {}
    for i, word in enumerate(words):
        if word.startswith("--"):
            takes = i + 1 < len(words) and not words[i + 1].startswith("--")
            flags[word] = words[i + 1] if takes else True
    return flags


def test_the_openrlhf_and_slime_command_lines_run(server, tmp_path, monkeypatch):
    data = doc_block("python", "structtest_rl.jsonl")
    openrlhf = doc_block("sh", "openrlhf.cli.train_ppo_ray")
    slime = doc_block("sh", "--rm-type remote_rm")
    serve = doc_block("sh", "structtest serve --port 8000")
    assert "build/structtest serve --port 8000" in serve
    monkeypatch.chdir(tmp_path)
    exec(compile(data, PAGE + " (OpenRLHF and slime data)", "exec"), {})
    local = server.base.replace("http://", "")
    tokenizer = replay_openrlhf.StandInTokenizer()

    # OpenRLHF: its dataset (load_dataset("json")), --data.* keys and --reward.remote_url.
    flags = command_flags(openrlhf, "openrlhf.cli.train_ppo_ray")
    url = flags["--reward.remote_url"].replace("127.0.0.1:8000", local)
    rows = arrow_rows(list(replay_slime.read_jsonl(flags["--data.prompt_dataset"])))
    rows = rows[::max(1, len(rows) // 12)]
    assert flags["--data.apply_chat_template"] is True
    for row in rows:
        prompt, label = replay_openrlhf.preprocess_data(
            row, input_key=flags["--data.input_key"], label_key=flags["--data.label_key"],
            apply_chat_template=tokenizer.apply_chat_template)
        sample = json.loads(label)
        for text in answers(sample):
            output = replay_openrlhf.single_turn_execute(prompt, label, text, tokenizer, [url])
            assert output["reward"] == [structtest.reward(sample, text)], sample["id"]

    # slime: its dataset, --input-key/--label-key, --rm-url and --reward-key.
    flags = command_flags(slime, "train.py")
    args = replay_slime.args_for(flags["--rm-url"].replace("127.0.0.1:8000", local),
                                 reward_key=flags.get("--reward-key"))
    assert flags["--rm-type"] == "remote_rm"
    rollouts = replay_slime.dataset_samples(flags["--prompt-data"], prompt_key=flags["--input-key"],
                                            label_key=flags["--label-key"],
                                            apply_chat_template=tokenizer.apply_chat_template)
    for rollout in rollouts[::max(1, len(rollouts) // 12)]:
        sample = json.loads(rollout.label)
        for text in answers(sample):
            rollout.response = text
            rollout.reward = replay_slime.async_rm(args, rollout)
            assert replay_slime.get_reward_value(rollout, args) == structtest.reward(sample, text)


# --- serve's flags --------------------------------------------------------------------------------

def test_end_tokens_are_configurable_and_the_default_rules_are_stated(samples):
    help_text = subprocess.run([BINARY, "serve", "--help"], capture_output=True, text=True).stdout
    assert ("Every endpoint scores under strict unless the request names other rules, and every "
            "reply names its rules") in " ".join(help_text.split())
    sample = next(s for s in samples if s["subtask"] == "math_easy")
    server = Server("--end-tokens", "<|stop|>,<|halt|>")
    try:
        assert "strict rules unless a request names others" in server.line
        args = replay_slime.args_for(server.base + "/slime/reward")
        rollout = SimpleNamespace(prompt="Q", response=answer(sample) + "<|halt|><|stop|>",
                                  label=sample, metadata={}, reward=None)
        assert replay_slime.async_rm(args, rollout) == 1.0
    finally:
        server.stop()
