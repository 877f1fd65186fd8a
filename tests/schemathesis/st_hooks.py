"""Schemathesis hooks for tests/http_schemathesis.rs: the facts of the server under test that a static
openapi.yaml cannot state (they depend on the configuration and the models loaded), added to the schema
before any request is generated, so a request the schema calls valid is one this server can serve.

- The configured limits: max_tokens and n. Requests whose text would outgrow the served model's
  context (a 400 naming the limit, tested in tests/limits_alone.rs) are left out by size, as are
  speech inputs past SPEECH_CHARS (to keep the run short on a CPU).
- Token ids below the model's vocabulary size (prompt token lists, /detokenize, logit_bias keys).
- The models and voices this server has loaded, and the languages its transcription model speaks (another model is a 404, another voice a 400 naming
  `voice`), so that generated requests reach the code behind the model lookup.
- Rules between two fields, which JSON Schema cannot state: `best_of` equal to `n`, a `tool_choice`
  naming one of `tools`.
- A transcription's `file` as real audio (a short WAV): the schema says "binary", and random bytes are
  a 400 naming `file` (tested in tests/http_errors.rs).
- The request schemas' `allOf` flattened with `additionalProperties: false`: the same rule as their
  `unevaluatedProperties: false`, in the form the test data generator reads.

Everything comes from the environment the Rust test sets (GERBIL_ST_*).
"""
import copy
import os

import schemathesis

MAX_TOKENS = int(os.environ["GERBIL_ST_MAX_TOKENS"])
MAX_N = int(os.environ["GERBIL_ST_MAX_N"])
VOCAB = int(os.environ["GERBIL_ST_VOCAB"])
VOICES = os.environ["GERBIL_ST_VOICES"].split(",")
TEXT_MODELS = os.environ["GERBIL_ST_TEXT_MODELS"].split(",")
STT_MODELS = os.environ["GERBIL_ST_STT_MODELS"].split(",")
EMBED_MODELS = os.environ["GERBIL_ST_EMBED_MODELS"].split(",")
EMBED_DIMS = int(os.environ["GERBIL_ST_EMBED_DIMS"])
EMBED_TOKENS = int(os.environ["GERBIL_ST_EMBED_TOKENS"])
# Characters of text per request (prompt, messages, tools and grammars together), so that no request
# outgrows the context: a character is at most 4 UTF-8 bytes and a byte-level tokenizer spends at most
# a token per byte.
PROMPT_CHARS = int(os.environ["GERBIL_ST_PROMPT_CHARS"])
SPEECH_CHARS = int(os.environ["GERBIL_ST_SPEECH_CHARS"])


def _flatten(schemas, name):
    """allOf of objects -> one object with additionalProperties false (same fields, same rule)."""
    s = schemas[name]
    merged = {"type": "object", "properties": {}, "required": [], "additionalProperties": False, "allOf": []}
    for part in [s] + s.pop("allOf"):
        if "$ref" in part:
            part = schemas[part["$ref"].rsplit("/", 1)[1]]
        merged["properties"].update(copy.deepcopy(part.get("properties", {})))
        merged["required"] += part.get("required", [])
        if "anyOf" in part:
            merged["allOf"].append({"anyOf": copy.deepcopy(part["anyOf"])})
        if "if" in part:
            merged["allOf"].append({k: copy.deepcopy(part[k]) for k in ("if", "then", "else") if k in part})
        merged["allOf"] += copy.deepcopy(part.get("allOf", []))
    for k in ("anyOf", "if", "then", "else"):
        s.pop(k, None)
    s.pop("unevaluatedProperties", None)
    s.update(merged)
    return s


def _token_ids(schema):
    """Every `items: {type: integer, minimum: 0}` below `schema` gets the vocabulary's bound."""
    if isinstance(schema, dict):
        if schema.get("type") == "integer" and schema.get("minimum") == 0 and "maximum" not in schema:
            schema["maximum"] = VOCAB - 1
        for v in schema.values():
            _token_ids(v)
    elif isinstance(schema, list):
        for v in schema:
            _token_ids(v)


@schemathesis.hook
def before_load_schema(ctx, raw_schema):
    schemas = raw_schema["components"]["schemas"]
    sampling = schemas["SamplingFields"]["properties"]
    sampling["n"]["maximum"] = MAX_N
    sampling["model"] = {"enum": TEXT_MODELS}
    sampling["logit_bias"]["propertyNames"] = {"pattern": "^(0|[1-9][0-9]?)$"}  # ids below 100 < VOCAB
    assert VOCAB > 100
    for name in ("CompletionRequest", "ChatCompletionRequest"):
        req = _flatten(schemas, name)
        for field in ("max_tokens", "max_completion_tokens"):
            if field in req["properties"]:
                req["properties"][field]["maximum"] = MAX_TOKENS
        _token_ids(req["properties"].get("prompt", {}))
    # Grammars that compile: a regex, a Lark grammar or a JSON schema is text or an object whose
    # content JSON Schema cannot check (one that does not compile is a 400 naming the field, tested in
    # tests/http_structured.rs).
    so = schemas["StructuredOutputs"]["properties"]
    so["regex"] = {"enum": ["[a-z]{1,8}", "(yes|no)", "[0-9]+", None]}
    so["grammar"] = {"enum": ['start: "yes" | "no"', "start: /[a-z]+/", None]}
    so["json"] = {"enum": [{"type": "object"}, '{"type": "integer"}', {}, None]}
    rf = schemas["ResponseFormat"]["oneOf"][2]["properties"]["json_schema"]["properties"]
    rf["schema"] = {"enum": [{"type": "object", "properties": {"a": {"type": "integer"}}}, {}]}
    paths = raw_schema["paths"]
    detok = paths["/detokenize"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    _token_ids(detok)
    detok["properties"]["model"] = {"enum": TEXT_MODELS}
    tok = paths["/tokenize"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    tok["properties"]["model"] = {"enum": TEXT_MODELS}
    stt = paths["/v1/audio/transcriptions"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    stt["properties"]["model"] = {"enum": STT_MODELS}
    # The English-only Whisper takes English or no language (another is a 400 naming `language`).
    stt["properties"]["language"] = {"enum": ["en", ""]}
    emb = paths["/v1/embeddings"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]
    emb["model"] = {"enum": EMBED_MODELS}
    emb["dimensions"]["maximum"] = EMBED_DIMS
    for form in emb["input"]["oneOf"]:
        _token_ids(form)
    speech = schemas["SpeechRequest"]["properties"]
    speech["voice"] = {"enum": VOICES}


def _chars(value):
    """Characters in every string of a JSON value (keys included)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(str(k)) + _chars(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(_chars(v) for v in value)
    return 0


@schemathesis.hook
def filter_case(ctx, case):
    """Rules between fields, and sizes. (filter_case, unlike filter_body, also sees the coverage
    phase's cases. Negative cases that break these rules are dropped too; the rules are tested in
    tests/http_errors.rs, tests/limits_alone.rs and src/server/tools.rs.)"""
    body = case.body
    if not isinstance(body, dict):
        return True
    path = case.operation.path
    if path == "/v1/audio/speech":
        return _chars(body.get("input")) <= SPEECH_CHARS
    if path == "/v1/embeddings":
        # Each input within the embedding model's context (one past it is a 400 naming `input`, tested in
        # tests/http_embeddings.rs), and few enough to stay quick on software Vulkan.
        inputs = body.get("input")
        if not isinstance(inputs, list) or (inputs and isinstance(inputs[0], int)):
            inputs = [inputs]
        return len(inputs) <= 8 and all(
            _chars(i) <= PROMPT_CHARS if isinstance(i, str) else not isinstance(i, list) or len(i) <= EMBED_TOKENS
            for i in inputs
        )
    text = {k: v for k, v in body.items() if k in ("prompt", "messages", "tools", "response_format", "structured_outputs")}
    if path != "/v1/audio/transcriptions" and _chars(text) > PROMPT_CHARS:
        return False
    best_of = body.get("best_of")
    n = body.get("n") if body.get("n") is not None else 1
    if path == "/v1/completions" and best_of is not None and best_of != n:
        return False
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        tools = body.get("tools") if isinstance(body.get("tools"), list) else []
        names = [t["function"].get("name") for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)]
        if choice["function"].get("name") not in names:
            return False
    return True


def _wav(seconds=0.5, rate=16000):
    """A mono 16-bit WAV of a quiet 440 Hz tone."""
    import io
    import math
    import struct
    import wave

    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(3000 * math.sin(2 * math.pi * 440 * i / rate))) for i in range(int(seconds * rate))))
    return buf.getvalue()


WAV = _wav()


@schemathesis.hook
def map_case(ctx, case):
    # Generated files come as bytes or schemathesis' Binary wrapper; other types (negative cases) stay.
    body = case.body
    if case.operation.path == "/v1/audio/transcriptions" and isinstance(body, dict):
        if isinstance(body.get("file"), bytes) or type(body.get("file")).__name__ == "Binary":
            body["file"] = WAV
    return case
