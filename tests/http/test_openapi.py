"""openapi.yaml against the running server: the document itself is valid
OpenAPI 3.1, every route it lists answers with what it describes (checked by
openapi-core on real requests and responses, errors included), and every SSE
chunk matches its schema (checked with jsonschema against the document's
components). The server must list no route the document lacks."""

import copy
import json
import pathlib
import re

import jsonschema
import pytest
import requests
import yaml
from openapi_core import OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse
from openapi_spec_validator import validate

SPEC_PATH = pathlib.Path(__file__).resolve().parents[2] / "openapi.yaml"
PROMPT = "The old fisherman walks down to the quiet river and"


@pytest.fixture(scope="module")
def spec_dict():
    return yaml.safe_load(SPEC_PATH.read_text())


@pytest.fixture(scope="module")
def openapi(spec_dict, server):
    spec = copy.deepcopy(spec_dict)
    spec["servers"] = [{"url": server.base_url}]
    return OpenAPI.from_dict(spec)


def call(openapi, server, method, path, body=None, auth=True, expect=None, valid_request=True):
    """Sends a request; checks the spec accepts (or, for a deliberately bad
    request, rejects) it, and that it describes the response."""
    headers = server.headers() if auth else {}
    req = requests.Request(method, server.url(path), json=body, headers=headers)
    prepared = req.prepare()
    resp = requests.Session().send(prepared, timeout=120)
    if expect is not None:
        assert resp.status_code == expect, resp.text
    if body is not None and valid_request:
        openapi.validate_request(RequestsOpenAPIRequest(prepared))
    elif body is not None:
        with pytest.raises(Exception):
            openapi.validate_request(RequestsOpenAPIRequest(prepared))
    openapi.validate_response(RequestsOpenAPIRequest(prepared), RequestsOpenAPIResponse(resp))
    return resp


def test_document_is_valid_openapi(spec_dict):
    validate(spec_dict)


def test_served_document_is_the_file(server):
    r = requests.get(server.url("/openapi.yaml"), timeout=30)
    assert r.status_code == 200 and r.text == SPEC_PATH.read_text()


def test_plain_routes(openapi, server, model):
    call(openapi, server, "GET", "/health", expect=200)
    call(openapi, server, "GET", "/ready", expect=200)
    call(openapi, server, "GET", "/metrics", expect=200)
    # /openapi.yaml is compared byte for byte with the file above (openapi-core
    # has no deserializer for application/yaml bodies).
    call(openapi, server, "GET", "/v1/models", expect=200)
    call(openapi, server, "GET", f"/v1/models/{model}", expect=200)
    call(openapi, server, "GET", "/v1/models/missing", expect=404)
    r = call(openapi, server, "POST", "/tokenize", {"model": model, "prompt": PROMPT}, expect=200)
    ids = r.json()["tokens"]
    call(openapi, server, "POST", "/tokenize", {"model": model, "messages": [{"role": "user", "content": "hi"}]}, expect=200)
    call(openapi, server, "POST", "/detokenize", {"model": model, "tokens": ids}, expect=200)
    call(openapi, server, "POST", "/detokenize", {"model": model, "tokens": [10**9]}, expect=400)


def test_completion_responses(openapi, server, model):
    base = {"model": model, "prompt": PROMPT, "max_tokens": 5, "temperature": 0}
    call(openapi, server, "POST", "/v1/completions", base, expect=200)
    call(openapi, server, "POST", "/v1/completions", dict(base, n=2, logprobs=3, prompt=[PROMPT, "a river"]), expect=200)
    call(openapi, server, "POST", "/v1/completions", dict(base, echo=True, max_tokens=0, logprobs=1), expect=200)
    call(openapi, server, "POST", "/v1/completions", dict(base, prompt=[[5, 6, 7], [8, 9]], stop=["x", "y"]), expect=200)


def test_chat_responses(openapi, server, model):
    base = {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "temperature": 0}
    call(openapi, server, "POST", "/v1/chat/completions", base, expect=200)
    call(openapi, server, "POST", "/v1/chat/completions", dict(base, logprobs=True, top_logprobs=2, n=2, seed=1, temperature=0.7), expect=200)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}
    rf = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
    call(openapi, server, "POST", "/v1/chat/completions", dict(base, max_tokens=20, response_format=rf), expect=200)
    call(openapi, server, "POST", "/v1/completions", {"model": model, "prompt": PROMPT, "max_tokens": 8,
         "structured_outputs": {"regex": "[0-9]{1,3}"}}, expect=200)


def test_embedding_responses(openapi, server, embed_model):
    base = {"model": embed_model, "input": ["a river", "the fox"]}
    call(openapi, server, "POST", "/v1/embeddings", base, expect=200)
    call(openapi, server, "POST", "/v1/embeddings", dict(base, encoding_format="base64", dimensions=8), expect=200)
    call(openapi, server, "POST", "/v1/embeddings", {"model": embed_model, "input": [[5, 6], [7]]}, expect=200)
    call(openapi, server, "POST", "/v1/embeddings", {"model": embed_model, "input": "a", "dimensions": 10**4}, expect=400)
    call(openapi, server, "POST", "/v1/embeddings", {"model": "missing", "input": "a"}, expect=404)


def test_error_responses(openapi, server, model):
    bad = {"model": model, "prompt": PROMPT, "temperature": 7}
    call(openapi, server, "POST", "/v1/completions", bad, expect=400, valid_request=False)
    call(openapi, server, "POST", "/v1/completions", {"model": "missing", "prompt": PROMPT}, expect=404)
    bad = {"model": model, "messages": [{"role": "user", "content": "hi"}], "n": 0}
    call(openapi, server, "POST", "/v1/chat/completions", bad, expect=400, valid_request=False)
    if server.api_key:
        call(openapi, server, "GET", "/v1/models", auth=False, expect=401)


def sse_chunks(server, path, body):
    r = requests.post(server.url(path), json=body, headers=server.headers(), stream=True, timeout=120)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    payloads = [line[len("data: "):] for line in r.iter_lines(decode_unicode=True) if line.startswith("data: ")]
    assert payloads[-1] == "[DONE]"
    return [json.loads(p) for p in payloads[:-1]]


def validator(spec_dict, name):
    # The document is the root resource, so "#/components/..." refs resolve.
    root = {"$ref": f"#/components/schemas/{name}", "components": spec_dict["components"]}
    return jsonschema.Draft202012Validator(root)


@pytest.mark.parametrize("logprobs", [None, 2])
def test_completion_stream_chunks(spec_dict, server, model, logprobs):
    body = {"model": model, "prompt": [PROMPT, "a river"], "max_tokens": 6, "temperature": 0, "n": 2, "stream": True,
            "stream_options": {"include_usage": True}, "echo": True}
    if logprobs is not None:
        body["logprobs"] = logprobs
    chunks = sse_chunks(server, "/v1/completions", body)
    v = validator(spec_dict, "CompletionChunk")
    for c in chunks:
        v.validate(c)
    assert "usage" in chunks[-1] and chunks[-1]["choices"] == []
    assert {ch["index"] for c in chunks for ch in c["choices"]} == {0, 1, 2, 3}


def test_chat_stream_chunks(spec_dict, server, model):
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 6, "temperature": 0,
            "stream": True, "stream_options": {"include_usage": True}, "logprobs": True, "top_logprobs": 1}
    chunks = sse_chunks(server, "/v1/chat/completions", body)
    v = validator(spec_dict, "ChatCompletionChunk")
    for c in chunks:
        v.validate(c)


def test_error_body_schema_matches_sse_error_shape(spec_dict):
    # The SSE error event carries ErrorResponse; make sure the schema accepts
    # exactly the body the server sends for a timeout (see tests/http_load.rs).
    body = {"error": {"message": "the request took longer than the server's request timeout", "type": "timeout_error",
                      "param": None, "code": "request_timeout"}}
    validator(spec_dict, "ErrorResponse").validate(body)


def test_every_served_route_is_documented(spec_dict, server):
    # The router's routes, read from its source; `{*id}` is axum's wildcard for ids with slashes.
    app = (SPEC_PATH.parent / "src" / "server" / "app.rs").read_text()
    served = {re.sub(r"\{\*?\w+\}", "{model}", p) for p in re.findall(r'\.route\(\s*"([^"]+)"', app)}
    assert served == set(spec_dict["paths"])
    # And nothing else answers: an undocumented path is a 404 in OpenAI's shape.
    r = requests.get(server.url("/v1/files"), headers=server.headers(), timeout=30)
    assert r.status_code == 404 and set(r.json()["error"]) == {"message", "type", "param", "code"}
