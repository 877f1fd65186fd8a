"""Fixtures for the HTTP suite: a running gerbil server and clients for it.

Either point the suite at a server that is already running
(GERBIL_BASE_URL, GERBIL_API_KEY, GERBIL_MODEL, GERBIL_EMBED_MODEL; tests/http_python.rs does this),
or let it start one: the `gerbil` binary (GERBIL_BIN, default target/debug/gerbil)
serving the tiny tests/fixtures/qwen3 model as "qwen3" and tests/fixtures/qwen3_embed as "embed" with API key "test-key"
passed through the GERBIL_API_KEY environment variable.
"""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

import openai
import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, base_url, api_key, model, embed_model):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.embed_model = embed_model

    def url(self, path):
        return self.base_url + path

    def headers(self):
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn():
    binary = os.environ.get("GERBIL_BIN") or str(ROOT / "target" / "debug" / "gerbil")
    if not pathlib.Path(binary).exists():
        pytest.exit(f"no server binary at {binary}: run `cargo build` or set GERBIL_BIN / GERBIL_BASE_URL", 2)
    port = _free_port()
    cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    # The fixture with room for a tool-calling prompt (as tests/http_support's long_context_config).
    fixture = tempfile.mkdtemp(prefix="gerbil-long-fixture-")
    shutil.copytree(ROOT / "tests" / "fixtures" / "qwen3", fixture, dirs_exist_ok=True)
    declared = json.loads(pathlib.Path(fixture, "config.json").read_text())
    declared["max_position_embeddings"] = 2048
    pathlib.Path(fixture, "config.json").write_text(json.dumps(declared))
    cfg.write(
        f'listen = "127.0.0.1:{port}"\n'
        f'models = [{{ source = "{fixture}", name = "qwen3" }}, {{ source = "{ROOT / "tests" / "fixtures" / "qwen3_embed"}", name = "embed" }}]\n'
        "[limits]\nmax_slots = 4\nmax_tokens = 200\n"
    )
    cfg.close()
    env = dict(os.environ, GERBIL_API_KEY="test-key", XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp/xdg"))
    os.makedirs(env["XDG_RUNTIME_DIR"], exist_ok=True)
    proc = subprocess.Popen([binary, "serve", "--config", cfg.name], env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.exit(f"gerbil serve exited with {proc.returncode}", 2)
        try:
            if requests.get(base + "/ready", timeout=2).status_code == 200:
                return proc, Server(base, "test-key", "qwen3", "embed")
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    proc.terminate()
    pytest.exit("gerbil serve did not become ready within 120 s", 2)


@pytest.fixture(scope="session")
def server():
    base = os.environ.get("GERBIL_BASE_URL")
    if base:
        yield Server(
            base,
            os.environ.get("GERBIL_API_KEY", ""),
            os.environ.get("GERBIL_MODEL", "qwen3"),
            os.environ.get("GERBIL_EMBED_MODEL", "embed"),
        )
        return
    proc, srv = _spawn()
    try:
        yield srv
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="session")
def client(server):
    # No retries: a 429 or 5xx must surface as the error it is.
    return openai.OpenAI(base_url=server.url("/v1"), api_key=server.api_key or "unused", max_retries=0, timeout=120)


@pytest.fixture(scope="session")
def model(server):
    return server.model


@pytest.fixture(scope="session")
def embed_model(server):
    return server.embed_model
