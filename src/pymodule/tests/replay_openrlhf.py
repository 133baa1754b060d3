"""OpenRLHF's calls of a remote reward model (--reward.remote_url), replayed: our code
taking the steps that OpenRLHF's code takes, read from github.com/OpenRLHF/OpenRLHF at
3c3be6234e0cb353e76bb8019947db9dfe99fca7. Each function names the file it replays.
OpenRLHF posts with aiohttp (session.post(url, json=payload)); aiohttp is not installed
here, so the post is urllib's with the same body (json.dumps of the payload) and header
(Content-Type: application/json). Neither torch nor a tokenizer is here: a stand-in
tokenizer keeps special tokens as single tokens, as Hugging Face tokenizers do, and a check
stands for torch.tensor([value]) on what OpenRLHF turns into tensors. OpenRLHF's own
reward server at that commit (openrlhf/cli/serve_rm.py, get_reward) replies the same shape:
{"rewards": [...], "scores": [...], "extra_logs": {name: [...]}}, one value a query."""
import copy
import json
import numbers
import urllib.request

OPENRLHF_COMMIT = "3c3be6234e0cb353e76bb8019947db9dfe99fca7"


def preprocess_data(data, input_template=None, input_key="input", label_key=None,
                    apply_chat_template=None):
    """openrlhf/datasets/prompts_dataset.py preprocess_data: the prompt (through the chat
    template when --data.apply_chat_template) and the label, data[label_key] as the dataset
    holds it ("" without --data.label_key). Text prompts only (no <image>)."""
    if apply_chat_template:
        chat = data[input_key]
        if isinstance(chat, str):
            chat = [{"role": "user", "content": chat}]
        elif isinstance(chat, list):
            chat = copy.deepcopy(chat)
        prompt = apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    else:
        prompt = data[input_key]
        if input_template:
            prompt = input_template.format(prompt)
    label = "" if label_key is None else data[label_key]
    return prompt, label


class StandInTokenizer:
    """A tokenizer as far as OpenRLHF's single-turn executor uses it: text to ids with
    add_special_tokens=False (each special token one id, any other character one id),
    and decode(ids, skip_special_tokens=False) back to the same text; a ChatML chat
    template (Qwen's)."""

    SPECIAL = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")

    def __init__(self):
        self.vocab, self.ids = {}, []

    def _id(self, piece):
        if piece not in self.vocab:
            self.vocab[piece] = len(self.ids)
            self.ids.append(piece)
        return self.vocab[piece]

    def encode(self, text):
        ids, i = [], 0
        while i < len(text):
            special = next((s for s in self.SPECIAL if text.startswith(s, i)), None)
            piece = special or text[i]
            ids.append(self._id(piece))
            i += len(piece)
        return ids

    def decode(self, ids, skip_special_tokens=False):
        pieces = [self.ids[i] for i in ids]
        if skip_special_tokens:
            pieces = [p for p in pieces if p not in self.SPECIAL]
        return "".join(pieces)

    @property
    def eos_token_id(self):
        return self._id("<|im_end|>")

    def apply_chat_template(self, chat, tokenize=False, add_generation_prompt=True):
        text = "".join("<|im_start|>{}\n{}<|im_end|>\n".format(m["role"], m["content"])
                       for m in chat)
        return text + ("<|im_start|>assistant\n" if add_generation_prompt else "")


def single_turn_execute(prompt, label, response_text, hf_tokenizer, reward_endpoints,
                        max_length=100000, max_tokens=None, finish_with_eos=True,
                        headers=None):
    """openrlhf/utils/agent.py SingleTurnAgentExecutor.execute, the text path: the prompt
    tokenized without special tokens, cut from the left to leave room for max_tokens, the
    engine's token ids appended (vLLM's token_ids end with the EOS id when it stopped
    there), the whole decoded with its special tokens as the query, and the reward fetched
    for the one query; the output's reward, scores and extra_logs as it reads them.
    `response_text` stands for the engine's generation; `headers` for a token (OpenRLHF
    sends none: see docs/python-and-rl.md for serving it behind a proxy that adds one)."""
    prompt_token_ids = hf_tokenizer.encode(prompt)
    if max_tokens is None:
        max_tokens = max(1, max_length - len(prompt_token_ids))
    max_prompt_length = max_length - max_tokens
    if len(prompt_token_ids) > max_prompt_length:
        prompt_token_ids = prompt_token_ids[-max_prompt_length:]
    action_token_ids = hf_tokenizer.encode(response_text)
    if finish_with_eos:
        action_token_ids = action_token_ids + [hf_tokenizer.eos_token_id]
    observation_token_ids = prompt_token_ids + action_token_ids
    output = {"prompt": prompt, "label": label, "reward": None, "scores": None, "extra_logs": {}}
    query = hf_tokenizer.decode(observation_token_ids, skip_special_tokens=False)
    rewards_info_list = fetch_rewards_via_http(reward_endpoints, [query], [prompt], [label],
                                               headers=headers)
    rewards_info = rewards_info_list[0] if rewards_info_list else None
    if rewards_info:
        score_value = rewards_info.get("scores")
        if score_value is None:
            score_value = rewards_info.get("rewards")
        output.update(reward=rewards_info.get("rewards"), scores=score_value,
                      extra_logs=rewards_info.get("extra_logs") or {})
    output["query"] = query
    return output


def fetch_rewards_via_http(reward_endpoints, queries_list, prompts_list, labels_list,
                           headers=None):
    """openrlhf/utils/agent.py SingleTurnAgentExecutor._fetch_rewards_via_http: the
    queries sharded over the endpoints, one POST of {"query", "prompts", "labels"} each,
    raise_for_status, the reply's JSON. (OpenRLHF retries 5 times, then raises; the
    executor logs that at info level and keeps no reward.)"""
    num_servers = len(reward_endpoints)
    batch_size = (len(queries_list) + num_servers - 1) // num_servers
    replies = []
    for i, rm in enumerate(reward_endpoints):
        start_idx = i * batch_size
        end_idx = min((i + 1) * batch_size, len(queries_list))
        payload = {
            "query": queries_list[start_idx:end_idx],
            "prompts": prompts_list[start_idx:end_idx],
            "labels": labels_list[start_idx:end_idx],
        }
        request = urllib.request.Request(
            rm, data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", **(headers or {})})
        with urllib.request.urlopen(request, timeout=180) as response:
            replies.append(json.load(response))
    return replies


def tensor_data(value):
    """What torch.tensor(value) accepts of a reply's values: numbers, or lists of them all
    of one shape. Raises TypeError as torch does on anything else (a string, say)."""
    if isinstance(value, bool) or isinstance(value, numbers.Number):
        return value
    if isinstance(value, list):
        items = [tensor_data(v) for v in value]
        shapes = {json.dumps(_shape(v)) for v in items}
        if len(shapes) > 1:
            raise ValueError("expected sequence of equal shapes, got {}".format(sorted(shapes)))
        return items
    raise TypeError("new(): invalid data type '{}'".format(type(value).__name__))


def _shape(value):
    return [len(value)] + _shape(value[0]) if isinstance(value, list) and value else []


def process_response_into_experience(output):
    """openrlhf/trainer/ppo_utils/samples_generator.py _process_response_into_experience,
    the reward part: info["reward"] = torch.tensor([reward]), info["score"] =
    torch.tensor([scores]), and torch.tensor([value]) for each extra_logs entry. Returns
    those as plain lists (what the tensors would hold)."""
    info = {}
    if output["reward"] is not None:
        info["reward"] = tensor_data([output["reward"]])
    if output["scores"] is not None:
        info["score"] = tensor_data([output["scores"]])
    for key, value in output["extra_logs"].items():
        info[key] = tensor_data([value])
    return info
