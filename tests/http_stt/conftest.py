"""Fixtures for the speech-to-text HTTP suite, driven by tests/http_transcriptions.rs
(GERBIL_BASE_URL, GERBIL_API_KEY, GERBIL_STT_MODEL, GERBIL_BECKETT)."""

import os

import openai
import pytest


@pytest.fixture(scope="session")
def base_url():
    return os.environ["GERBIL_BASE_URL"].rstrip("/")


@pytest.fixture(scope="session")
def headers():
    key = os.environ.get("GERBIL_API_KEY", "")
    return {"Authorization": f"Bearer {key}"} if key else {}


@pytest.fixture(scope="session")
def client(base_url):
    return openai.OpenAI(
        base_url=base_url + "/v1", api_key=os.environ.get("GERBIL_API_KEY") or "unused", max_retries=0, timeout=300
    )


@pytest.fixture(scope="session")
def model():
    return os.environ["GERBIL_STT_MODEL"]


@pytest.fixture(scope="session")
def beckett():
    return os.environ["GERBIL_BECKETT"]
