"""`structtest serve`'s examples in docs/python-and-rl.md, run against the real
binary ($STRUCTTEST_BINARY) on an ephemeral port: over HTTP on loopback, and over HTTPS
with a token (a certificate openssl makes for 127.0.0.1)."""
import os
import re
import shutil
import signal
import subprocess
import urllib.error

import pytest

import docs_text

BINARY = os.environ.get("STRUCTTEST_BINARY", "")
PAGE = "docs/python-and-rl.md"


def serve_example(n=0):
    """The n-th Python block of the serve section of docs/python-and-rl.md."""
    blocks = docs_text.blocks(docs_text.section(PAGE, "## `structtest serve`"), "python")
    assert len(blocks) > n, "{}: the serve section has {} Python block(s), not {}".format(
        PAGE, len(blocks), n + 1)
    return blocks[n]


@pytest.mark.skipif(not os.path.exists(BINARY),
                    reason="STRUCTTEST_BINARY does not name the structtest binary")
def test_the_serve_example_runs():
    example = serve_example()
    assert "http://127.0.0.1:8000/v1/score" in example
    server = subprocess.Popen([BINARY, "serve", "--port", "0", "--threads", "2"],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        port = re.search(r"serving on http://127\.0\.0\.1:(\d+)", line)
        assert port, line
        example = example.replace("127.0.0.1:8000", "127.0.0.1:" + port.group(1))
        exec(compile(example, PAGE + " (structtest serve)", "exec"), {})
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err


@pytest.mark.skipif(not os.path.exists(BINARY),
                    reason="STRUCTTEST_BINARY does not name the structtest binary")
@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_the_https_serve_example_runs_with_a_token(tmp_path, monkeypatch):
    example = serve_example(1)
    assert "https://verifier.example:8443/v1/score" in example
    cert, key, token_file = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "token"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    token = "readme-token-0b7e"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    server = subprocess.Popen([BINARY, "serve", "--port", "0", "--threads", "2",
                               "--token-file", str(token_file), "--tls-cert", str(cert),
                               "--tls-key", str(key)],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        port = re.search(r"serving on https://127\.0\.0\.1:(\d+)", line)
        assert port, line
        example = example.replace("verifier.example:8443", "127.0.0.1:" + port.group(1))
        example = example.replace('"verifier-cert.pem"', repr(str(cert)))
        monkeypatch.setenv("STRUCTTEST_SERVE_TOKEN", token)
        scope = {}
        exec(compile(example, PAGE + " (structtest serve over HTTPS)", "exec"), scope)
        assert len(scope["rewards"]) == len(scope["records"]) > 0
        assert 1.0 in scope["rewards"]
        # The same call with another token is refused.
        monkeypatch.setenv("STRUCTTEST_SERVE_TOKEN", token + "x")
        with pytest.raises(urllib.error.HTTPError) as refused:
            exec(compile(example, PAGE + " (wrong token)", "exec"), {})
        assert refused.value.code == 401
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert token not in line + err
