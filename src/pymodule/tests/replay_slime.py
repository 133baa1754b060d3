"""slime's calls of a remote reward (--rm-type remote_rm --rm-url URL), replayed: our code
taking the steps that slime's code takes, read from github.com/THUDM/slime at
624b824a898ab0ec1fcb4d373004c7f3852bf515. Each function names the file it replays. slime
posts with aiohttp (session.post(args.rm_url, json=payload)); aiohttp is not installed
here, so the post is urllib's with the same body (json.dumps of the payload) and header
(Content-Type: application/json)."""
import json
import urllib.request
from types import SimpleNamespace

SLIME_COMMIT = "624b824a898ab0ec1fcb4d373004c7f3852bf515"


def read_jsonl(path):
    """slime/utils/data.py read_file, for .jsonl: json.loads of each non-blank line."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def dataset_samples(path, prompt_key="text", label_key=None, metadata_key="metadata",
                    apply_chat_template=None):
    """slime/utils/data.py Dataset.__init__ (text only): each row's prompt
    (_build_messages; through the tokenizer's chat template when --apply-chat-template)
    and label=data[label_key], as a Sample (slime/utils/types.py) holds them."""
    samples = []
    for data in read_jsonl(path):
        prompt = data.get(prompt_key)
        if apply_chat_template:
            if isinstance(prompt, str):
                prompt = [{"role": "user", "content": prompt}]
            prompt = apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
        samples.append(SimpleNamespace(prompt=prompt,
                                       label=data[label_key] if label_key is not None else None,
                                       metadata=data.get(metadata_key) or {},
                                       response="", reward=None))
    return samples


def remote_rm(args, sample, headers=None):
    """slime/rollout/rm_hub/__init__.py remote_rm: POST {"prompt", "response", "label"} to
    args.rm_url, raise_for_status, the reply's JSON as the reward. (slime retries 10
    times with backoff, then raises.) `headers` stands for a proxy's (slime sends none)."""
    payload = {
        "prompt": sample.prompt,
        "response": sample.response,
        "label": sample.label,
    }
    request = urllib.request.Request(
        args.rm_url, data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=120) as resp:
        return json.load(resp)


def async_rm(args, sample, headers=None):
    """slime/rollout/rm_hub/__init__.py async_rm, for --rm-type remote_rm (no custom
    reward function)."""
    rm_type = ((sample.metadata or {}).get("rm_type") or args.rm_type or "").strip()
    if rm_type == "remote_rm":
        return remote_rm(args, sample, headers=headers)
    raise NotImplementedError("the replay covers --rm-type remote_rm only, not {!r}".format(rm_type))


def get_reward_value(sample, args):
    """slime/utils/types.py Sample.get_reward_value: the reward, or reward[--reward-key]."""
    return sample.reward if not args.reward_key else sample.reward[args.reward_key]


def args_for(rm_url, reward_key=None):
    """The arguments these read (slime/utils/arguments.py: --rm-type, --rm-url,
    --reward-key)."""
    return SimpleNamespace(rm_type="remote_rm", rm_url=rm_url, reward_key=reward_key,
                           custom_rm_path=None)
