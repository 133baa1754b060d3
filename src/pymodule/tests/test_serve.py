"""`structtest serve`'s example in README.md ("Python and RL"), run against the real
binary ($STRUCTTEST_BINARY) on an ephemeral port."""
import os
import re
import signal
import subprocess

import pytest

BINARY = os.environ.get("STRUCTTEST_BINARY", "")
README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def serve_example():
    text = open(README, encoding="utf-8").read()
    section = text[text.index("### `structtest serve`"):]
    section = section[:section.index("\n## ")]
    block = section[section.index("```python\n") + len("```python\n"):]
    return block[:block.index("```")]


@pytest.mark.skipif(not os.path.exists(BINARY),
                    reason="STRUCTTEST_BINARY does not name the structtest binary")
def test_the_readme_serve_example_runs():
    example = serve_example()
    assert "http://127.0.0.1:8000/v1/score" in example
    server = subprocess.Popen([BINARY, "serve", "--port", "0", "--threads", "2"],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        port = re.search(r"serving on http://127\.0\.0\.1:(\d+)", line)
        assert port, line
        example = example.replace("127.0.0.1:8000", "127.0.0.1:" + port.group(1))
        exec(compile(example, "README.md (structtest serve)", "exec"), {})
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
