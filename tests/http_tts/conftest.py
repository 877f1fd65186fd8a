"""Fixtures for the speech suite: a running gerbil server with the Piper voice `joe`
(GERBIL_BASE_URL, GERBIL_API_KEY; tests/http_speech.rs starts it)."""

import os

import openai
import pytest


@pytest.fixture(scope="session")
def base_url():
    url = os.environ.get("GERBIL_BASE_URL")
    if not url:
        pytest.exit("set GERBIL_BASE_URL to a server with the `joe` voice (tests/http_speech.rs does)", 2)
    return url.rstrip("/")


@pytest.fixture(scope="session")
def client(base_url):
    return openai.OpenAI(base_url=base_url + "/v1", api_key=os.environ.get("GERBIL_API_KEY", "unused"), max_retries=0, timeout=300)
